/**
 * Toolgate in this window, wired together: the gate, the tools, the agent, MCP, the views and the commands' handlers.
 * The extension entry (src/extension.ts) loads this module on first use (a view, a command, an API call), so that
 * activation itself only registers what VS Code calls into; everything here answers once `createToolgate()` returns.
 * Nothing here decides: the logic is in src/core, reached through the ports implemented next to this file.
 */
import path from 'node:path';
import * as vscode from 'vscode';
import { ChatBook } from '../core/agent/chats';
import { AgentSession } from '../core/agent/session';
import type { AuditEntry } from '../core/audit/auditLog';
import { FocusedCalls } from '../core/views/focusedCall';
import { DisposableStore, disposableTimeout } from '../core/disposable';
import { initShellParser, whenShellParserLoaded } from '../core/shell/analysis';
import { ToolService } from '../core/tools/service';
import { PanelHold } from '../core/views/panelReveal';
import type { PendingCallView } from '../shared/approvals';
import { ApprovalsPanel } from './webviews/approvalsPanel';
import { ChatViewProvider } from './webviews/chatViewProvider';
import { createCommands, type CommandHandlers } from './commands';
import { createDiffCommands } from './diffEditor/diffActions';
import { createGateParts } from './windowGate';
import { createLog } from './log';
import { McpServers } from './mcp/mcpServers';
import { McpServersView, type McpServersNode } from './mcp/mcpServersView';
import { KeptResults } from './documents/keptResults';
import { TaskChangeDocuments } from './documents/taskChangeDocuments';
import { createModel, explainModelFailure, type ModelChoicePorts } from '../core/modelChoice';
import { isRemoteWindow } from './remoteWindow';
import { ArgsDocuments } from './documents/argsDocuments';
import { createProposedDiffs, DiffTabs } from './diffEditor/proposedDiffs';
import { watchTerminalRules } from './ruleWarnings';
import { ApiKeyStore } from './model/secrets';
import { ModelSetup } from '../core/llm/modelSetupFlow';
import { editorModels } from './model/vscodeLmModel';
import { createOtherAgents, outsideChats, type OtherAgents } from './otherAgents/otherAgents';
import { Settings } from './settings';
import { WindowAuditExport } from './auditExport';
import { SuggestionsPanel } from './webviews/suggestionsPanel';
import { createCommandSandbox } from './terminal/sandbox';
import { SandboxPolicyDocument } from './terminal/sandboxPolicyDocument';
import { GitCli } from '../core/checkpoints/gitCli';
import { RunningCommandChanges } from './terminal/runningCommandChanges';
import { showCreatedProtected, TerminalRunner } from './terminal/terminalRunner';
import { ConfinedRunner } from '../core/terminal/confinedRun';
import { createUndoCommands } from './undo/undoCommands';
import { createCheckpoints } from '../core/checkpoints/windowCheckpoints';
import { chatRequests, panelRequests } from '../core/views/viewRequests';
import { VsCodeWorkspaceFiles } from './documents/workspaceFiles';
import { WaitAttention } from '../core/views/waitAttention';
import { WaitingStatus } from './statusBar/waitingStatus';
import { UnreviewedStatus } from './statusBar/unreviewedStatus';
import { ViewRefresh } from '../core/views/viewRefresh';
import { WorkspacePaths } from './workspacePaths';
import { addAllowedDomains, addWorkspaceRule, ignoredWorkspaceValues, writeModelSettings } from './workspaceSettings';
import { approvalsState, chatCalls, chatState } from '../core/views/viewStates';
import { createManagedSettings, managedReport, modelRefusal } from './managedWarnings';

/** Workspace state: the person's last choice of unified or side-by-side diffs in the panel. */
const diffModeKey = 'toolgate.view.diffMode';

export interface Toolgate extends Omit<OtherAgents, 'mcpEndpoint'> {
  /** The handler of each contributed command. */
  commands: CommandHandlers;
  /** What VS Code asks of the views, through the providers the entry registered at activation. */
  chat: vscode.WebviewViewProvider;
  approvals: Pick<ApprovalsPanel, 'revive'>;
  mcpServers: vscode.TreeDataProvider<McpServersNode> & { onDidChangeTreeData: vscode.Event<undefined> };
  /** Stops everything; MCP servers are closed (stdin, then terminate, then kill) before it resolves. */
  dispose(): Promise<void>;
}

export function createToolgate(context: vscode.ExtensionContext, onDecide: (entry: AuditEntry) => void): Toolgate {
  const store = new DisposableStore();
  const log = store.add(createLog());
  // Terminal commands are analysed with tree-sitter's bash grammar: not loaded at activation, but a second after this
  // was first used (once what it was loaded for has been answered), so that an agent's first command does not wait
  // for it. A command analysed before that waits for it. If it cannot load, every command asks, saying why; the next
  // one retries.
  const shellParserReady = (): Promise<void> =>
    initShellParser(path.join(context.extensionPath, 'dist')).catch((error: unknown) => {
      log.error(`the shell parser did not load, so terminal commands ask: ${String(error)}`);
    });
  // What judging a command needs: the parser, and whether the sandbox can start here (probed once, in parallel).
  const commandJudgeReady = (): Promise<void> => Promise.all([shellParserReady(), sandbox.ready()]).then(() => undefined);
  store.add(disposableTimeout(() => void shellParserReady(), 1_000));
  const settings = store.add(new Settings(log));
  // The team's managed settings file: read before anything is judged, and again whenever it changes.
  const managed = createManagedSettings(settings, log, store);
  const managedPolicy = managed.policy.bind(managed);
  const apiKeys = store.add(new ApiKeyStore(context.secrets));
  const paths = store.add(new WorkspacePaths());
  const sandbox = createCommandSandbox(context, settings, log, paths, managedPolicy);
  const policyDocument = store.add(new SandboxPolicyDocument(sandbox, () => managedReport(managed, settings)));
  const { gate, grants, audit, auditFile, state, policy } = createGateParts(context, settings, log, paths, sandbox, { managed: managedPolicy, onDecide }, store);
  // The profile's mcp.json sits two folders above this extension's global storage (User/globalStorage/<id>).
  const mcp = new McpServers(context.workspaceState, log, path.join(context.extensionPath, 'dist'), sandbox, vscode.Uri.joinPath(context.globalStorageUri, '..', '..', 'mcp.json'), managed);
  const chats = store.add(new ChatBook(state, log));
  // Whether commands' changes are reviewed here, said on the status bar from the start, not only on the first card.
  store.add(new UnreviewedStatus(sandbox, settings, log));
  const terminals = store.add(new TerminalRunner((chatId) => outsideChats[chatId] ?? chats.list().find((chat) => chat.id === chatId)?.title));
  const terminal = store.add(new ConfinedRunner({ sandbox, terminal: terminals, relative: (absolute) => vscode.workspace.asRelativePath(absolute) }));
  store.add(terminal.onDidCreateProtected((created) => showCreatedProtected(created)));
  const runningChanges = store.add(new RunningCommandChanges(() => terminal.runningStages(), () => paths.resolver.roots));
  // Checkpoints of what the agent's allowed calls change; a note when old ones are dropped goes to the chat.
  const checkpoints = createCheckpoints({ state, settings, log, disposables: store, onNote: (note) => chats.notice(`Checkpoints: ${note.message}`) });
  // Next to the audit log, in Toolgate's storage, which no tool call may read.
  const keptResults = new KeptResults(path.join(path.dirname(auditFile), 'results'));
  const git = new GitCli();
  const tools = new ToolService({
    results: keptResults,
    gate,
    files: new VsCodeWorkspaceFiles(),
    resolver: () => paths.resolver,
    terminal,
    terminalTimeoutSeconds: () => settings.get('terminal.timeoutSeconds'),
    commandJudgeReady,
    log,
    recorder: checkpoints.recorder,
    staging: { ignored: (folder, paths) => git.ignored(folder, paths), landIgnored: () => settings.get('sandbox.landIgnoredFiles') },
    allowDomains: addAllowedDomains,
    mcp: {
      resolve: (name) => mcp.modelTools().resolve(name),
      call: (server, tool, args, options) => mcp.manager.callTool(server, tool, args, options),
    },
  });
  const proposed = createProposedDiffs(store, { gate, tools, log });
  const args = new ArgsDocuments(gate);
  store.add(vscode.workspace.registerTextDocumentContentProvider(ArgsDocuments.scheme, args));
  const taskChanges = store.add(new TaskChangeDocuments(checkpoints.store));
  // The card that holds the keyboard focus in either view: what Toolgate: Allow Once / Deny decide.
  const focus = new FocusedCalls();
  // Whether the person closed the Approvals panel during the running task: then no new call of it reopens the panel.
  const hold = new PanelHold();
  const modelPorts: ModelChoicePorts = { settings, apiKeys, editorModels, ignoredBaseUrls: () => ignoredWorkspaceValues('toolgate.model.baseUrl'), remote: isRemoteWindow, managed: managedPolicy };
  const agent = new AgentSession({
    chats,
    tools,
    gate,
    endSessionGrants: (chatId) => grants.endSession(chatId),
    model: () => createModel(modelPorts),
    maxSteps: () => settings.get('agent.maxSteps'),
    mcp: {
      specs: () => mcp.modelTools().specs,
      servers: () => mcp.servers(),
      whenConfigured: (deadline) => mcp.whenConfigured(deadline),
      whenSettled: (deadline, signal) => mcp.whenSettled(deadline, signal),
    },
    explainModelFailure: (error, kind) => explainModelFailure(modelPorts, error, kind),
    onRunning: (running) => {
      hold.taskRunning(running);
      void vscode.commands.executeCommand('setContext', 'toolgate.running', running);
    },
    taskChanges: (task) => taskChanges.changes(task),
    log,
  });
  store.add({ dispose: () => agent.cancel() }); // before the chats are saved: the task stops, its waiting calls are denied
  const undo = createUndoCommands({
    store: checkpoints.store, audit, activeChatId: () => agent.chatId, log, disposables: store,
    // In the chat it undid when shown (else in the log), and its task's list of changes then says what is left.
    onUndone: (result) => result.chatId === chats.current.id && (chats.notice(result.text, 'info'), void agent.refreshChanges(result.taskId)),
  });
  let refreshChat = (): void => undefined; // the chat, once it exists (the setup reports before it is made)
  const modelSetup = store.add(new ModelSetup({ settings, apiKeys, editorModels, writeModelSettings, log, onDidChange: () => refreshChat(), refused: modelRefusal(managed) }));
  const chatPending = (): PendingCallView[] => chatCalls(gate, agent.chatId);
  const trusted = (): boolean => vscode.workspace.isTrusted;
  const chat = store.add(
    new ChatViewProvider(
      context.extensionUri,
      log,
      () => chatState({ gate, settings, trusted, agent, chats, setup: modelSetup, tasks: (chatId) => checkpoints.store.tasks(chatId) }),
      chatRequests(agent, gate, grants, { proposed, args }, focus, keptResults, taskChanges, modelSetup, {
        preview: (request) => undo.preview(request),
        undoTurn: (ref) => undo.commands['toolgate.undoTurn'](ref),
      }),
      () => chats.whenSaved(),
    ),
  );
  refreshChat = () => chat.refresh();

  const approvals = store.add(
    new ApprovalsPanel(
      context.extensionUri,
      log,
      () => approvalsState({ gate, trusted, agent, grantChats: () => [agent.chatId, ...Object.keys(outsideChats)], storedDiffMode: () => context.workspaceState.get(diffModeKey) }),
      panelRequests(gate, grants, { proposed, args }, focus, (mode) => context.workspaceState.update(diffModeKey, mode)),
    ),
  );

  const suggestions = store.add(
    new SuggestionsPanel(context.extensionUri, log, {
      audit,
      auditFile,
      settings,
      policy,
      resolver: () => paths.resolver,
      shellParserReady,
      grants,
      mcpDefinition: (tool) => mcp.modelTools().resolve(tool)?.tool.definitionHash,
      trusted,
      addWorkspaceRule,
    }),
  );

  const signals = store.add(new WaitingStatus((badge) => chat.setBadge(badge)));
  const attention = new WaitAttention({ gate, agent, chatPending, enabled: () => settings.get('notifications.whenHidden'), chat, approvals, signals });
  const views = store.add(new ViewRefresh({
    gate, log, chat, approvals, chatPending, attention, diffTabs: new DiffTabs(proposed, log), hold,
    revealSetting: () => settings.get('approvals.revealPanel'),
    changes: [(listener) => settings.onDidChange(listener), (listener) => vscode.workspace.onDidGrantWorkspaceTrust(listener), (listener) => managed.onDidChange(listener)],
  }));
  store.add(
    chats.onDidChange(() => {
      [chat, approvals].forEach((view) => view.refresh()); // the panel says when a question waits in the chat
      attention.refresh();
      terminals.retainChats(new Set([...Object.keys(outsideChats), ...chats.list().map(({ id }) => id)]));
    }),
  );
  store.add(watchTerminalRules(settings, log, whenShellParserLoaded));
  views.refresh();
  void mcp.reload().catch((error: unknown) => log.error(`MCP: ${String(error)}`));
  const version = String((context.extension.packageJSON as { version?: unknown }).version);
  const auditExport = store.add(new WindowAuditExport(context, settings, log, version, { audit, managed }));
  log.info(`Toolgate ${version} started`);
  const others = createOtherAgents(tools, log, version, { state, secrets: context.secrets }, store);

  return {
    ...others,
    commands: {
      ...createCommands({ agent, gate, chat, approvals, modelSetup, audit, auditFile, grants, mcp, endpoint: others.mcpEndpoint, suggestions, focus, inChat: (callId) => chatPending().some((call) => call.callId === callId) }),
      ...undo.commands,
      ...createDiffCommands({ gate, proposed }),
      'toolgate.showStagedChanges': () => runningChanges.show(),
      'toolgate.showTaskChanges': () => taskChanges.show(agent.chatId),
      'toolgate.showSandboxPolicy': (arg?: unknown) => policyDocument.show(arg),
      ...auditExport.commands,
    },
    chat, approvals,
    mcpServers: store.add(new McpServersView(mcp)),
    dispose: async () => {
      store.dispose();
      // The calls the gate closed as not run are written before the host goes (a reload does not wait long).
      await new Promise((resolve) => setImmediate(resolve));
      await Promise.all([audit.flush(), auditExport.exporter.flush()]);
      // Last, and awaited: the servers' processes must be gone before the extension host exits.
      mcp.dispose();
      await mcp.manager.close();
    },
  };
}
