/**
 * The extension entry. Activation only registers what VS Code needs at once (the contributed commands) and returns
 * the API; the rest of Toolgate (src/vscode/host.ts: the gate, the tools, the agent, MCP, the views) is its own
 * bundle, loaded right after activation returns. Every command and API call waits for it, so the API answers
 * correctly from the moment `activate()` resolves.
 */
import * as vscode from 'vscode';
import type { AuditEntry } from './core/audit/auditLog';
import type { ToolgateApi } from './vscode/api';
import { commandIds } from './vscode/commandIds';
import type { ToolgateHost } from './vscode/host';

let host: Promise<ToolgateHost> | undefined;

export function activate(context: vscode.ExtensionContext): ToolgateApi {
  const onDidDecide = new vscode.EventEmitter<AuditEntry>();
  const loadHost = (): Promise<ToolgateHost> => {
    host ??= import('./vscode/host').then(({ createToolgateHost }) => createToolgateHost(context, (entry) => onDidDecide.fire(entry)));
    return host;
  };
  context.subscriptions.push(
    onDidDecide,
    ...commandIds.map((id) => vscode.commands.registerCommand(id, async (...args: unknown[]) => (await loadHost()).commands[id](...args))),
  );
  // Off the activation path, but at once: MCP servers start, settings are checked and the views are served.
  setTimeout(() => {
    loadHost().catch((error: unknown) => {
      void vscode.window.showErrorMessage(`Toolgate failed to start: ${error instanceof Error ? error.message : String(error)}`);
    });
  }, 0);
  return {
    requestApproval: async (call) => (await loadHost()).api.requestApproval(call),
    evaluate: async (call) => (await loadHost()).api.evaluate(call),
    invokeTool: async (call) => (await loadHost()).api.invokeTool(call),
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
