/**
 * Toolgate's host side, wired together: the gate, the tools, the agent, MCP, the views and the commands' handlers.
 * The extension entry (src/extension.ts) loads this module on first use (a view, a command, an API call), so that
 * activation itself only registers what VS Code calls into; everything here answers once `createToolgateHost()`
 * returns.
 */
import path from 'node:path';
import * as vscode from 'vscode';
import { initShellParser } from '../core/shell/analysis';
import { brokenTerminalRules, deadTerminalRules } from '../core/shell/rules';
import { DisposableStore } from '../core/disposable';
import type { AuditEntry } from '../core/audit/auditLog';
import type { ToolgateApi } from './api';
import { AgentHost } from './agentHost';
import { ApprovalsPanel, type PanelRequest } from './approvalsPanel';
import type { Outcome } from './commandBridge';
import { ChatViewProvider } from './chatViewProvider';
import type { CommandId } from './commandIds';
import { createGateHost } from './gateHost';
import { createLog } from './log';
import { McpHost } from './mcpHost';
import { McpServersView, type McpServersNode } from './mcpServersView';
import { ProposedContentProvider } from './proposedContent';
import { ApiKeyStore } from './secrets';
import { Settings } from './settings';
import { TerminalRunner } from './tools/terminal';
import { ToolService } from './toolService';
import { WorkspacePaths } from './workspacePaths';
import { ignoredWorkspaceValues } from './workspaceSettings';

/** The chat whose session grants apply to calls that come through the API. */
const apiChatId = 'api';

export interface ToolgateHost {
  /** The API of the public contract, except `onDidDecide`, which the entry owns (see `onDecide`). */
  api: Omit<ToolgateApi, 'onDidDecide'>;
  /** The handler of each contributed command. */
  commands: Record<CommandId, (...args: unknown[]) => unknown>;
  /** What VS Code asks of the views, through the providers the entry registered at activation. */
  chat: vscode.WebviewViewProvider;
  approvals: Pick<ApprovalsPanel, 'revive'>;
  mcpServers: vscode.TreeDataProvider<McpServersNode> & { onDidChangeTreeData: vscode.Event<undefined> };
  /** Stops everything; MCP servers are closed (stdin, then terminate, then kill) before it resolves. */
  dispose(): Promise<void>;
}

export function createToolgateHost(context: vscode.ExtensionContext, onDecide: (entry: AuditEntry) => void): ToolgateHost {
  const store = new DisposableStore();
  const log = store.add(createLog());
  // Terminal commands are analysed with tree-sitter's bash grammar: not loaded at activation, but a second after this
  // host was first used (once what it was loaded for has been answered), so that an agent's first command does not
  // wait for it. A command analysed before that waits for it. If it cannot load, every command asks, saying why; the
  // next one retries.
  const shellParserReady = (): Promise<void> =>
    initShellParser(path.join(context.extensionPath, 'dist')).catch((error: unknown) => {
      log.error(`the shell parser did not load, so terminal commands ask: ${String(error)}`);
    });
  const warmUp = setTimeout(() => void shellParserReady(), 1_000);
  store.add({ dispose: () => clearTimeout(warmUp) });
  const settings = new Settings(log);
  const apiKeys = new ApiKeyStore(context.secrets);
  const paths = new WorkspacePaths();
  const { gate, grants, audit, auditFile, state } = createGateHost(context, settings, log, paths);
  const terminal = new TerminalRunner();
  const mcp = new McpHost(context.workspaceState, log);
  const tools = new ToolService(gate, settings, terminal, log, paths, shellParserReady, {
    resolve: (name) => mcp.modelTools().resolve(name),
    call: (server, tool, args, options) => mcp.manager.callTool(server, tool, args, options),
  });
  const proposed = new ProposedContentProvider(tools.proposals);

  const agent = new AgentHost(
    state,
    settings,
    tools,
    gate,
    grants,
    apiKeys,
    log,
    {
      specs: () => mcp.modelTools().specs,
      servers: () => mcp.servers(),
      whenConfigured: (deadline) => mcp.whenConfigured(deadline),
      whenSettled: (deadline, signal) => mcp.whenSettled(deadline, signal),
    },
    () => ignoredWorkspaceValues('toolgate.model.baseUrl'),
  );
  const chat = new ChatViewProvider(
    context.extensionUri,
    log,
    () => ({
      view: 'chat',
      model: { baseUrl: settings.get('model.baseUrl'), name: settings.get('model.name'), provider: settings.get('model.provider') },
      waitingCalls: gate.waitingCount,
      trusted: vscode.workspace.isTrusted,
      chatId: agent.chatId,
      running: agent.isRunning,
      entries: agent.entries(),
      chats: agent.chatList(),
    }),
    (message) => {
      switch (message.type) {
        case 'submit':
          agent.submit(message.prompt);
          return { ok: true };
        case 'stop':
          return agent.cancel() ? { ok: true } : { ok: false, error: 'no task is running' };
        case 'newChat':
          return agent.newChat();
        case 'openChat':
          return agent.openChat(message.chatId);
        case 'answer':
          return agent.answer(message.questionId, message.answer);
      }
    },
  );

  const handlePanel = async (message: PanelRequest): Promise<Outcome> => {
    switch (message.type) {
      case 'decide':
        return gate.decide(message);
      case 'decideAll': {
        const outcome = gate.decideAll(message);
        return outcome.errors.length === 0 ? { ok: true } : { ok: false, error: outcome.errors.join('; ') };
      }
      case 'openDiff':
        await proposed.openDiff(message.callId);
        return { ok: true };
      case 'revokeGrant':
        return (await grants.revoke(message.grantId)) ? { ok: true } : { ok: false, error: `no grant ${message.grantId}` };
    }
  };
  const approvals = new ApprovalsPanel(
    context.extensionUri,
    log,
    () => ({
      view: 'approvals',
      waitingCalls: gate.waitingCount,
      trusted: vscode.workspace.isTrusted,
      pending: gate.pendingViews(),
      grants: gate.grantViews(agent.chatId),
    }),
    handlePanel,
  );

  const status = vscode.window.createStatusBarItem('toolgate.waiting', vscode.StatusBarAlignment.Left, 1000);
  status.name = 'Toolgate: waiting calls';
  status.command = 'toolgate.openApprovals';
  status.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
  let lastWaiting = 0;
  const refreshViews = (): void => {
    const waiting = gate.waitingCount;
    status.text = `$(shield) ${waiting} waiting`;
    status.tooltip = `${waiting} Toolgate call${waiting === 1 ? '' : 's'} waiting for approval: open the Approvals panel`;
    if (waiting > 0) {
      status.show();
    } else {
      status.hide();
    }
    if (waiting > lastWaiting) {
      approvals.show(true);
    }
    lastWaiting = waiting;
    chat.refresh();
    approvals.refresh();
  };

  for (const disposable of [
    paths,
    chat,
    approvals,
    status,
    terminal,
    gate,
    agent,
    agent.onDidChange(() => chat.refresh()),
    audit.onDidRecord(onDecide),
    gate.onDidChange(refreshViews),
    vscode.workspace.registerTextDocumentContentProvider(ProposedContentProvider.scheme, proposed),
    settings.onDidChange(refreshViews),
    vscode.workspace.onDidGrantWorkspaceTrust(refreshViews),
  ]) {
    store.add(disposable);
  }

  const commands: ToolgateHost['commands'] = {
    'toolgate.mcp.restart': (item?: unknown) => {
      const server = serverOf(item);
      return server !== undefined ? mcp.manager.restart(server) : mcp.reload();
    },
    'toolgate.mcp.stop': (item?: unknown) => {
      const server = serverOf(item);
      return server !== undefined ? mcp.manager.stop(server) : undefined;
    },
    'toolgate.mcp.showOutput': () => mcp.showOutput(),
    'toolgate.openApprovals': () => approvals.show(),
    'toolgate.runTask': async (prompt?: unknown) => {
      let task = typeof prompt === 'string' ? prompt : undefined;
      if (task === undefined) {
        task = await vscode.window.showInputBox({ title: 'Toolgate: Run Task', prompt: 'What should the agent do?', ignoreFocusOut: true });
      }
      if (task === undefined || task.trim() === '') {
        return undefined;
      }
      return await agent.runTask(task.trim());
    },
    'toolgate.cancel': () => agent.cancel(),
    'toolgate.newChat': () => {
      const outcome = agent.newChat();
      if (!outcome.ok) {
        void vscode.window.showWarningMessage(`Toolgate: ${outcome.error}`);
      }
    },
    'toolgate.setApiKey': () => apiKeys.prompt(),
    'toolgate.showAuditLog': async () => {
      await audit.flush();
      try {
        await vscode.window.showTextDocument(vscode.Uri.file(auditFile), { preview: true });
      } catch {
        void vscode.window.showInformationMessage('Toolgate: no decision has been logged in this workspace yet.');
      }
    },
    'toolgate.resetWorkspaceApprovals': async (confirm?: unknown) => {
      const count = grants.workspaceGrants().length;
      if (count === 0) {
        void vscode.window.showInformationMessage('Toolgate: there are no workspace grants to reset.');
        return 0;
      }
      if (confirm !== true) {
        const answer = await vscode.window.showWarningMessage(
          `Remove all ${count} "always allow" grant${count === 1 ? '' : 's'} of this workspace?`,
          { modal: true },
          'Remove',
        );
        if (answer !== 'Remove') {
          return 0;
        }
      }
      const removed = await grants.resetWorkspace();
      void vscode.window.showInformationMessage(`Toolgate: removed ${removed} workspace grant${removed === 1 ? '' : 's'}.`);
      return removed;
    },
  };
  const reportedRules = new Set<string>();
  const reportRule = (key: string, why: string): void => {
    if (!reportedRules.has(key)) {
      reportedRules.add(key);
      log.warn(`toolgate.autoApprove.terminal: ${key} ${why}`);
      void vscode.window.showWarningMessage(`Toolgate: the terminal rule ${key} ${why}.`);
    }
  };
  // Broken regexes at once; rules that can never match once the parser has loaded (it reads each rule as a command).
  const reportRules = (): void => {
    const rules = settings.get('autoApprove.terminal');
    for (const key of brokenTerminalRules(rules)) {
      reportRule(key, 'is not a valid regular expression, so it matches nothing');
    }
    void shellParserReady().then(() => {
      for (const { key, why } of deadTerminalRules(rules)) {
        reportRule(key, `can never allow a command: ${why}`);
      }
    });
  };
  reportRules();
  store.add(settings.onDidChange((affects) => affects('autoApprove.terminal') && reportRules()));
  refreshViews();
  void mcp.reload().catch((error: unknown) => log.error(`MCP: ${String(error)}`));
  const manifest = context.extension.packageJSON as { version?: unknown };
  log.info(`Toolgate ${String(manifest.version)} started`);

  const api: ToolgateHost['api'] = {
    requestApproval: async (call) => {
      const result = await tools.requestApproval(call, { chatId: apiChatId });
      return {
        approved: result.verdict === 'allow',
        reason: result.reason,
        decidedBy: result.decidedBy,
        ...(result.verdict === 'allow' && result.edited !== undefined ? { edited: result.edited } : {}),
      };
    },
    evaluate: (call) => tools.evaluate(call),
    invokeTool: async (call) => {
      const [result] = await tools.runBatch([{ source: 'api', ...call }], { chatId: apiChatId });
      if (!result) {
        throw new Error('no result');
      }
      return result;
    },
  };
  return {
    api,
    commands,
    chat,
    approvals,
    mcpServers: store.add(new McpServersView(mcp)),
    dispose: async () => {
      store.dispose();
      // Last, and awaited: the servers' processes must be gone before the extension host exits.
      mcp.dispose();
      await mcp.manager.close();
    },
  };
}

/** The server a context-menu command was invoked on (a node of the MCP Servers view), if any. */
function serverOf(item: unknown): string | undefined {
  if (typeof item === 'object' && item !== null && 'server' in item && typeof item.server === 'string') {
    return item.server;
  }
  return undefined;
}

