import path from 'node:path';
import * as vscode from 'vscode';
import { configureShellParser, initShellParser } from './core/shell/analysis';
import { brokenTerminalRules, deadTerminalRules } from './core/shell/rules';
import { Emitter } from './core/disposable';
import type { AuditEntry } from './core/audit/auditLog';
import type { ToolgateApi } from './vscode/api';
import { AgentHost } from './vscode/agentHost';
import { ApprovalsPanel, type PanelRequest } from './vscode/approvalsPanel';
import type { Outcome } from './vscode/commandBridge';
import { ChatViewProvider } from './vscode/chatViewProvider';
import { createGateHost } from './vscode/gateHost';
import { createLog } from './vscode/log';
import { McpHost } from './vscode/mcpHost';
import { McpServersView } from './vscode/mcpServersView';
import { ProposedContentProvider } from './vscode/proposedContent';
import { ApiKeyStore } from './vscode/secrets';
import { Settings } from './vscode/settings';
import { TerminalRunner } from './vscode/tools/terminal';
import { ToolService } from './vscode/toolService';
import { WorkspacePaths } from './vscode/workspacePaths';

/** The chat whose session grants apply to calls that come through the API. */
const apiChatId = 'api';

export function activate(context: vscode.ExtensionContext): ToolgateApi {
  const log = createLog();
  context.subscriptions.push(log);
  // Terminal commands are analysed with tree-sitter's bash grammar; an analysis waits for it to load (milliseconds).
  configureShellParser(path.join(context.extensionPath, 'dist'));
  initShellParser().catch((error: unknown) => {
    log.error(`the shell parser did not load, so every terminal command will ask: ${String(error)}`);
  });
  const settings = new Settings(log);
  const apiKeys = new ApiKeyStore(context.secrets);
  const paths = new WorkspacePaths();
  const { gate, grants, audit, auditFile, state } = createGateHost(context, settings, log, paths);
  const terminal = new TerminalRunner();
  const mcp = new McpHost(context.workspaceState, log);
  mcpHost = mcp;
  const tools = new ToolService(gate, settings, terminal, log, paths, {
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
    () => mcp.modelTools().specs,
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

  const onDidDecide = new Emitter<AuditEntry>();
  context.subscriptions.push(
    log,
    paths,
    chat,
    approvals,
    status,
    terminal,
    gate,
    agent,
    mcp,
    vscode.window.registerTreeDataProvider('toolgate.mcpServers', new McpServersView(mcp)),
    vscode.commands.registerCommand('toolgate.mcp.restart', (item?: { server?: string }) =>
      item?.server !== undefined ? mcp.manager.restart(item.server) : mcp.reload(),
    ),
    vscode.commands.registerCommand('toolgate.mcp.stop', (item?: { server?: string }) =>
      item?.server !== undefined ? mcp.manager.stop(item.server) : undefined,
    ),
    vscode.commands.registerCommand('toolgate.mcp.showOutput', () => mcp.showOutput()),
    onDidDecide,
    agent.onDidChange(() => chat.refresh()),
    audit.onDidRecord((entry) => onDidDecide.fire(entry)),
    gate.onDidChange(refreshViews),
    vscode.workspace.registerTextDocumentContentProvider(ProposedContentProvider.scheme, proposed),
    vscode.window.registerWebviewViewProvider(ChatViewProvider.viewType, chat),
    vscode.commands.registerCommand('toolgate.openApprovals', () => approvals.show()),
    vscode.commands.registerCommand('toolgate.runTask', async (prompt?: unknown) => {
      let task = typeof prompt === 'string' ? prompt : undefined;
      if (task === undefined) {
        task = await vscode.window.showInputBox({ title: 'Toolgate: Run Task', prompt: 'What should the agent do?', ignoreFocusOut: true });
      }
      if (task === undefined || task.trim() === '') {
        return undefined;
      }
      return await agent.runTask(task.trim());
    }),
    vscode.commands.registerCommand('toolgate.cancel', () => agent.cancel()),
    vscode.commands.registerCommand('toolgate.newChat', () => {
      const outcome = agent.newChat();
      if (!outcome.ok) {
        void vscode.window.showWarningMessage(`Toolgate: ${outcome.error}`);
      }
    }),
    vscode.commands.registerCommand('toolgate.setApiKey', () => apiKeys.prompt()),
    vscode.commands.registerCommand('toolgate.showAuditLog', async () => {
      await audit.flush();
      try {
        await vscode.window.showTextDocument(vscode.Uri.file(auditFile), { preview: true });
      } catch {
        void vscode.window.showInformationMessage('Toolgate: no decision has been logged in this workspace yet.');
      }
    }),
    vscode.commands.registerCommand('toolgate.resetWorkspaceApprovals', async (confirm?: unknown) => {
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
    }),
    settings.onDidChange(refreshViews),
    vscode.workspace.onDidGrantWorkspaceTrust(refreshViews),
  );
  const reportedRules = new Set<string>();
  const reportRule = (key: string, why: string): void => {
    if (!reportedRules.has(key)) {
      reportedRules.add(key);
      log.warn(`toolgate.autoApprove.terminal: ${key} ${why}`);
      void vscode.window.showWarningMessage(`Toolgate: the terminal rule ${key} ${why}.`);
    }
  };
  const reportBrokenRules = async (): Promise<void> => {
    const rules = settings.get('autoApprove.terminal');
    for (const key of brokenTerminalRules(rules)) {
      reportRule(key, 'is not a valid regular expression, so it matches nothing');
    }
    await initShellParser();
    for (const { key, why } of deadTerminalRules(rules)) {
      reportRule(key, `can never allow a command: ${why}`);
    }
  };
  const reportRules = (): void => {
    reportBrokenRules().catch((error: unknown) => log.error(`could not check the terminal rules: ${String(error)}`));
  };
  reportRules();
  context.subscriptions.push(settings.onDidChange((affects) => affects('autoApprove.terminal') && reportRules()));
  refreshViews();
  void mcp.reload().catch((error: unknown) => log.error(`MCP: ${String(error)}`));
  const manifest = context.extension.packageJSON as { version?: unknown };
  log.info(`Toolgate ${String(manifest.version)} activated`);

  return {
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
    onDidDecide: onDidDecide.event,
  };
}

let mcpHost: McpHost | undefined;

/** MCP servers are closed before the extension host exits: stdin, then terminate, then kill. */
export async function deactivate(): Promise<void> {
  await mcpHost?.manager.close();
  mcpHost = undefined;
}
