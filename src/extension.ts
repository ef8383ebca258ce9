/**
 * The extension entry. Activation only registers what VS Code calls into (the contributed commands, the chat view,
 * the approvals panel's serializer, the MCP Servers view, the language-model tools, the MCP server definition) and
 * returns the API. The rest of Toolgate (src/vscode/toolgate.ts: the gate, the tools, the agent, MCP) is its own
 * bundle, loaded on first use with V8's code cache (src/loadBundle.ts): when VS Code resolves a view or runs a command,
 * or another extension calls the API. Each of those waits for it, so the API answers correctly from the moment
 * `activate()` resolves.
 */
import path from 'node:path';
import * as vscode from 'vscode';
import type { AuditEntry } from './core/audit/auditLog';
import type { ToolgateApi } from './vscode/otherAgents/api';
import { endpointKept, endpointStateKey } from './core/endpoint/keptEndpoint';
import { lmInvocationMessage, lmToolName, lmToolSources } from './core/tools/lmToolNames';
import { commandIds } from './core/commandIds';
import type { createToolgate, Toolgate } from './vscode/toolgate';
import type { McpServersNode } from './vscode/mcp/mcpServersView';
import { loadBundle } from './loadBundle';

let host: Promise<Toolgate> | undefined;

/** What dist/toolgate.js exports (src/vscode/toolgate.ts). */
interface ToolgateBundle {
  createToolgate: typeof createToolgate;
}

/** How long after Toolgate's bundle is loaded its code cache is written (src/loadBundle.ts). */
const codeCacheDelayMs = 5_000;

/** The id of the MCP server definition provider (package.json `mcpServerDefinitionProviders`). */
const mcpProviderId = 'toolgate.gate';

export function activate(context: vscode.ExtensionContext): ToolgateApi {
  const onDidDecide = new vscode.EventEmitter<AuditEntry>();
  const mcpServersChanged = new vscode.EventEmitter<undefined>();
  const loadHost = (): Promise<Toolgate> => {
    if (host === undefined) {
      host = Promise.resolve().then(() => {
        const storage = context.globalStorageUri;
        const cacheDir = storage.scheme === 'file' ? path.join(storage.fsPath, 'code-cache') : undefined;
        const bundle = loadBundle(path.join(__dirname, 'toolgate.js'), cacheDir, module);
        const { createToolgate } = bundle.exports as ToolgateBundle;
        const loaded = createToolgate(context, (entry) => onDidDecide.fire(entry));
        context.subscriptions.push(loaded.mcpServers.onDidChangeTreeData(() => mcpServersChanged.fire(undefined)));
        // Once the first work is done (its functions compiled too), not while the person waits for it.
        const keep = setTimeout(() => bundle.keepCodeCache(), codeCacheDelayMs);
        context.subscriptions.push({ dispose: () => clearTimeout(keep) });
        return loaded;
      });
      host.catch((error: unknown) => {
        void vscode.window.showErrorMessage(`Toolgate failed to start: ${error instanceof Error ? error.message : String(error)}`);
      });
    }
    return host;
  };
  context.subscriptions.push(
    onDidDecide,
    mcpServersChanged,
    ...commandIds.map((id) => vscode.commands.registerCommand(id, async (...args: unknown[]) => (await loadHost()).commands[id](...args))),
    vscode.window.registerWebviewViewProvider('toolgate.chat', {
      resolveWebviewView: async (view, resolveContext, token) => {
        await (await loadHost()).chat.resolveWebviewView(view, resolveContext, token);
      },
    }),
    // After a window reload VS Code hands back the approvals panel it had open.
    vscode.window.registerWebviewPanelSerializer('toolgate.approvals', {
      deserializeWebviewPanel: async (panel) => {
        (await loadHost()).approvals.revive(panel);
      },
    }),
    vscode.window.registerTreeDataProvider<McpServersNode>('toolgate.mcpServers', {
      onDidChangeTreeData: mcpServersChanged.event,
      getChildren: async (node) => (await loadHost()).mcpServers.getChildren(node),
      getTreeItem: async (node) => (await loadHost()).mcpServers.getTreeItem(node),
    }),
    // Toolgate's tools for other agents (Copilot agent mode, other extensions): no confirmation of VS Code's own on
    // top of the gate's, which is the confirmation.
    ...lmToolSources.map((tool) =>
      vscode.lm.registerTool<unknown>(lmToolName(tool), {
        prepareInvocation: (options) => ({ invocationMessage: lmInvocationMessage(tool, options.input) }),
        invoke: async (options, token) => (await loadHost()).lmTools.invoke(tool, options.input, token),
      }),
    ),
    // The same tools over MCP, for VS Code's own MCP client: the endpoint starts (and its address and secret are known)
    // only when VS Code starts the server, not when it lists servers.
    vscode.lm.registerMcpServerDefinitionProvider(mcpProviderId, {
      provideMcpServerDefinitions: () => [new vscode.McpHttpServerDefinition('Toolgate', vscode.Uri.parse('http://127.0.0.1/mcp'), {}, String((context.extension.packageJSON as { version?: unknown }).version))],
      resolveMcpServerDefinition: async (server) => {
        const { url, headers } = await (await loadHost()).api.mcpEndpoint();
        return Object.assign(server, { uri: vscode.Uri.parse(url), headers });
      },
    }),
  );
  // MCP clients keep the endpoint's config in their own files: once it was started in this workspace, it listens again
  // as soon as the window starts (at its kept port, with its kept secret), not only when something here asks for it.
  if (endpointKept(context.workspaceState.get(endpointStateKey))) {
    void loadHost();
  }
  return {
    requestApproval: async (call) => (await loadHost()).api.requestApproval(call),
    evaluate: async (call) => (await loadHost()).api.evaluate(call),
    invokeTool: async (call) => (await loadHost()).api.invokeTool(call),
    mcpEndpoint: async () => (await loadHost()).api.mcpEndpoint(),
    onDidDecide: onDidDecide.event,
  };
}

/** Stops everything; MCP servers are closed before the extension host exits (stdin, then terminate, then kill). */
export async function deactivate(): Promise<void> {
  const loaded = host;
  host = undefined;
  const started = await loaded?.catch(() => undefined);
  await started?.dispose();
}
