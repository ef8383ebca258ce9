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
import { callWaiters, questionWaiter, WaitNotifier, type Waiter, type Whereabouts } from '../core/views/waitNotices';
import { DisposableStore } from '../core/disposable';
import { initShellParser } from '../core/shell/analysis';
import { ToolService } from '../core/tools/service';
import type { PendingCallView } from '../shared/approvals';
import type { ToolgateApi } from './api';
import { DiffMode } from '../shared/approvals';
import { ApprovalsPanel } from './approvalsPanel';
import { Attention, type WaitNoticeHandlers } from './attention';
import { ChatViewProvider } from './chatViewProvider';
import { createCommands, type CommandHandlers } from './commands';
import { createDiffCommands, HunkLenses, HunkMarks } from './diffActions';
import { createGateParts } from './gateParts';
import { createLog } from './log';
import { McpServers } from './mcpServers';
import { McpServersView, type McpServersNode } from './mcpServersView';
import { KeptResults } from './keptResults';
import { createModel, explainModelFailure } from './modelPorts';
import { ProposedContentProvider } from './proposedContent';
import { watchTerminalRules } from './ruleWarnings';
import { ApiKeyStore } from './secrets';
import { Settings } from './settings';
import { SuggestionsPanel } from './suggestionsPanel';
import { createCommandSandbox } from './sandbox';
import { GitCli } from '../core/checkpoints/gitCli';
import { StagedSoFar } from './stagedSoFar';
import { TerminalRunner } from './tools/terminal';
import { createCheckpoints, createUndoCommands } from './undoCommands';
import { chatRequests, panelRequests } from './viewRequests';
import { VsCodeWorkspaceFiles } from './workspaceFiles';
import { WorkspacePaths } from './workspacePaths';
import { pendingViews } from '../core/views/pendingCall';
import { grantViews } from '../core/views/grants';

/** The chat whose session grants apply to calls that come through the API. */
const apiChatId = 'api';
/** Workspace state: the person's last choice of unified or side-by-side diffs in the panel. */
const diffModeKey = 'toolgate.view.diffMode';
/** The views are refreshed at most this often while calls keep arriving or settling (a lone change shows at once). */
const refreshSpacingMs = 100;

export interface Toolgate {
  /** The API of the public contract, except `onDidDecide`, which the entry owns (see `onDecide`). */
  api: Omit<ToolgateApi, 'onDidDecide'>;
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
  const warmUp = setTimeout(() => void shellParserReady(), 1_000);
  store.add({ dispose: () => clearTimeout(warmUp) });
  const settings = store.add(new Settings(log));
  const apiKeys = new ApiKeyStore(context.secrets);
  const paths = store.add(new WorkspacePaths());
  const sandbox = createCommandSandbox(context, settings, log, paths);
  const { gate, grants, audit, auditFile, state, policy } = createGateParts(context, settings, log, paths, sandbox);
  store.add(gate);
  const mcp = new McpServers(context.workspaceState, log, path.join(context.extensionPath, 'dist'), sandbox);
  const chats = store.add(new ChatBook(state, log));
  const terminal = store.add(new TerminalRunner((chatId) => (chatId === apiChatId ? 'API calls' : chats.list().find((chat) => chat.id === chatId)?.title), sandbox));
  const stagedSoFar = store.add(new StagedSoFar(() => terminal.runningStages(), () => paths.resolver.roots));
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
    staging: {
      ignored: (folder, paths) => git.ignored(folder, paths),
      landIgnored: () => settings.get('sandbox.landIgnoredFiles'),
    },
    mcp: {
      resolve: (name) => mcp.modelTools().resolve(name),
      call: (server, tool, args, options) => mcp.manager.callTool(server, tool, args, options),
    },
  });
  const proposed = new ProposedContentProvider((callId) => tools.proposal(callId), {
    get: (callId) => gate.heldEdit(callId),
    set: (callId, text) => {
      const call = pendingViews(gate).find((view) => view.callId === callId);
      const outcome = call ? gate.setEdit(call, text, 'diff-editor') : undefined;
      if (outcome?.ok === false) {
        log.warn(`the diff editor's edit of ${callId} was not kept: ${outcome.error}`);
      }
    },
  });
  store.add(proposed.trackTyping());
  store.add(gate.onDidChange(() => proposed.followHeldEdits()));
  // The card that holds the keyboard focus in either view: what Toolgate: Allow Once / Deny decide.
  const focus = new FocusedCalls();
  const agent = new AgentSession({
    chats,
    tools,
    gate,
    endSessionGrants: (chatId) => grants.endSession(chatId),
    model: () => createModel(settings, apiKeys),
    maxSteps: () => settings.get('agent.maxSteps'),
    mcp: {
      specs: () => mcp.modelTools().specs,
      servers: () => mcp.servers(),
      whenConfigured: (deadline) => mcp.whenConfigured(deadline),
      whenSettled: (deadline, signal) => mcp.whenSettled(deadline, signal),
    },
    explainModelFailure: (error, kind) => explainModelFailure(settings, error, kind),
    onRunning: (running) => void vscode.commands.executeCommand('setContext', 'toolgate.running', running),
    log,
  });
  // Disposed before the chats are saved: a running task is stopped and its waiting calls are denied.
  store.add({ dispose: () => agent.cancel() });

  // The agent's calls of this chat only: API and other chats' calls are reviewed in the panel.
  const chatPending = (): PendingCallView[] => pendingViews(gate, agent.chatId).filter((call) => call.source === 'agent');
  const chat = store.add(
    new ChatViewProvider(
      context.extensionUri,
      log,
      () => ({
        view: 'chat',
        model: { baseUrl: settings.get('model.baseUrl'), name: settings.get('model.name'), provider: settings.get('model.provider') },
        waitingCalls: gate.waitingCount,
        trusted: vscode.workspace.isTrusted,
        chatId: agent.chatId,
        running: agent.isRunning,
        entries: chats.current.entries,
        pending: chatPending(),
        chats: chats.list(),
      }),
      chatRequests(agent, gate, grants, proposed, focus, keptResults),
    ),
  );

  const approvals = store.add(
    new ApprovalsPanel(
      context.extensionUri,
      log,
      () => ({
        view: 'approvals', waitingCalls: gate.waitingCount, trusted: vscode.workspace.isTrusted, pending: pendingViews(gate), grants: grantViews(gate, agent.chatId),
        diffMode: DiffMode.catch('unified').parse(context.workspaceState.get(diffModeKey)),
      }),
      panelRequests(gate, grants, proposed, focus, (mode) => context.workspaceState.update(diffModeKey, mode)),
    ),
  );

  const suggestions = store.add(
    new SuggestionsPanel({
      extensionUri: context.extensionUri,
      log,
      audit,
      auditFile,
      settings,
      policy,
      resolver: () => paths.resolver,
      shellParserReady,
      grants,
      mcpDefinition: (tool) => mcp.modelTools().resolve(tool)?.tool.definitionHash,
    }),
  );

  const attention = store.add(new Attention((badge) => chat.setBadge(badge)));
  const settleFromNotice = (waiter: Waiter, choice: 'allow-once' | 'deny'): void => {
    if (waiter.kind === 'call') {
      // A batch's Deny denies each of its calls; Allow once is offered only for a lone call.
      const refs = waiter.refs ?? [{ callId: waiter.id, argsHash: waiter.argsHash }];
      const errors = (choice === 'deny' ? refs : refs.slice(0, 1)).flatMap((ref) => {
        const outcome = gate.settle(ref, { action: choice });
        return outcome.ok ? [] : [outcome.error];
      });
      if (errors.length > 0) {
        void vscode.window.showWarningMessage(`Toolgate: ${errors.join('; ')}`);
      }
    }
  };
  const noticeHandlers: WaitNoticeHandlers = {
    'Allow once': (waiter) => settleFromNotice(waiter, 'allow-once'),
    Deny: (waiter) => settleFromNotice(waiter, 'deny'),
    Open: (waiter) => (waiter.kind === 'call' ? approvals.show() : void vscode.commands.executeCommand('toolgate.chat.focus')),
  };
  // Read before the panel is revealed for a new call: whether the person could see the call when it started waiting.
  const notifier = new WaitNotifier();
  const nowhere: Whereabouts = { enabled: false, windowFocused: true, visible: { chat: false, approvals: false } };
  const waiters = (): Waiter[] => {
    const inChat = new Set(chatPending().map((call) => call.callId));
    return [
      ...callWaiters(pendingViews(gate), (callId) => inChat.has(callId)),
      ...agent.questionViews().map(({ id, question }) => questionWaiter(id, question)),
    ];
  };
  const refreshAttention = (): void => {
    attention.show({ calls: gate.waitingCount, questions: agent.waitingQuestions });
    const waiting = gate.waitingCount + agent.waitingQuestions === 0 ? [] : waiters();
    const whereabouts = (): Whereabouts => ({
      enabled: settings.get('notifications.whenHidden'),
      windowFocused: vscode.window.state.focused,
      visible: { chat: chat.visible, approvals: approvals.visible },
    });
    for (const notice of notifier.update(waiting, waiting.length === 0 ? nowhere : whereabouts())) {
      attention.notify(notice, noticeHandlers);
    }
  };
  let lastWaiting = 0;
  const diffUris = new Map<string, string>();
  let sentDiffs: string | undefined;
  const refreshViews = (): void => {
    const waiting = gate.waitingCount;
    refreshAttention();
    if (waiting > lastWaiting) {
      approvals.show(true);
    }
    lastWaiting = waiting;
    void proposed.closeDecided((callId) => gate.isWaiting(callId)).catch((error: unknown) => log.warn(`could not close a decided diff: ${String(error)}`));
    // The diff editor's title-bar actions show only on a waiting call's proposed side. Each call's URI is made once
    // and the context is set only when the list changed: 500 URIs made and sent on every refresh cost 50 ms each time.
    const waitingIds = new Set(pendingViews(gate).map((call) => call.callId));
    for (const callId of diffUris.keys()) {
      if (!waitingIds.has(callId)) {
        diffUris.delete(callId);
      }
    }
    const waitingDiffs = [...waitingIds].flatMap((callId) => {
      const known = diffUris.get(callId) ?? proposed.proposedUri(callId)?.toString();
      if (known !== undefined) {
        diffUris.set(callId, known);
      }
      return known ?? [];
    });
    if (waitingDiffs.join('\n') !== sentDiffs) {
      sentDiffs = waitingDiffs.join('\n');
      void vscode.commands.executeCommand('setContext', 'toolgate.waitingDiffs', waitingDiffs);
    }
    chat.refresh();
    approvals.refresh();
  };
  store.add(
    chats.onDidChange(() => {
      chat.refresh();
      refreshAttention();
      terminal.retainChats(new Set([apiChatId, ...chats.list().map(({ id }) => id)]));
    }),
  );
  store.add(audit.onDidRecord(onDecide));
  // At the end of this turn of the event loop, and no sooner than refreshSpacingMs after the last refresh, however
  // many calls a burst adds or settles: each refresh reads every waiting call and posts to the views, so one per
  // change made a burst of N calls cost N × N (once per turn still did, when the calls arrived a few per turn).
  let refreshTimer: ReturnType<typeof setTimeout> | undefined;
  let lastRefresh = 0;
  store.add(
    gate.onDidChange(() => {
      refreshTimer ??= setTimeout(
        () => {
          refreshTimer = undefined;
          lastRefresh = performance.now();
          refreshViews();
        },
        Math.max(0, lastRefresh + refreshSpacingMs - performance.now()),
      );
    }),
  );
  store.add({ dispose: () => clearTimeout(refreshTimer) });
  store.add(proposed);
  // In memory: saving the proposed side keeps it for an Allow and never writes the real file.
  store.add(vscode.workspace.registerFileSystemProvider(ProposedContentProvider.scheme, proposed, { isCaseSensitive: true }));
  // Accept / Reject over each hunk of a waiting call's proposed side: the same live choices as the panel and the chat.
  // CodeLens is off in diff editors unless `diffEditor.codeLens` is on: each hunk also gets a mark with the choice.
  store.add(vscode.languages.registerCodeLensProvider({ scheme: ProposedContentProvider.scheme }, store.add(new HunkLenses({ gate, proposed }))));
  store.add(new HunkMarks({ gate, proposed }));
  store.add(settings.onDidChange(refreshViews));
  store.add(vscode.workspace.onDidGrantWorkspaceTrust(refreshViews));
  store.add(watchTerminalRules(settings, log, shellParserReady));
  refreshViews();
  void mcp.reload().catch((error: unknown) => log.error(`MCP: ${String(error)}`));
  const manifest = context.extension.packageJSON as { version?: unknown };
  log.info(`Toolgate ${String(manifest.version)} started`);

  const api: Toolgate['api'] = {
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
    commands: {
      ...createCommands({ agent, gate, chat, approvals, apiKeys, audit, auditFile, grants, mcp, suggestions, focus, inChat: (callId) => chatPending().some((call) => call.callId === callId) }),
      ...createUndoCommands({ store: checkpoints.store, audit, activeChatId: () => agent.chatId, log, disposables: store }),
      ...createDiffCommands({ gate, proposed }),
      'toolgate.showStagedChanges': () => stagedSoFar.show(),
    },
    chat,
    approvals,
    mcpServers: store.add(new McpServersView(mcp)),
    dispose: async () => {
      store.dispose();
      // The calls the gate closed as not run are written before the host goes (a reload does not wait long).
      await new Promise((resolve) => setImmediate(resolve));
      await audit.flush();
      // Last, and awaited: the servers' processes must be gone before the extension host exits.
      mcp.dispose();
      await mcp.manager.close();
    },
  };
}
