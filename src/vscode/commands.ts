/** The handlers of the contributed commands: each translates a VS Code command into a call on the core, or a prompt. */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import * as vscode from 'vscode';
import type { AgentSession } from '../core/agent/session';
import type { FocusedCalls } from '../core/views/focusedCall';
import type { Gate } from '../core/approval/gate';
import { callWaiter } from '../core/views/waitNotices';
import type { PendingCallView } from '../shared/approvals';
import type { GrantStore } from '../core/approval/grants';
import type { AuditLog } from '../core/audit/auditLog';
import { auditTable } from '../core/audit/auditTable';
import type { ApprovalsPanel } from './approvalsPanel';
import type { ChatViewProvider } from './chatViewProvider';
import type { CommandId, DiffCommandId, UndoCommandId } from './commandIds';
import type { McpEndpointHost } from './mcpEndpoint';
import type { McpServers } from './mcpServers';
import type { ModelSetup } from './modelSetup';
import type { SuggestionsPanel } from './suggestionsPanel';
import { pendingViews, type GateState } from '../core/views/pendingCall';

export interface CommandDeps {
  agent: AgentSession;
  gate: GateState & Pick<Gate, 'settle'>;
  chat: Pick<ChatViewProvider, 'focusField' | 'visible' | 'focusCall' | 'announce'>;
  approvals: Pick<ApprovalsPanel, 'show' | 'visible' | 'focusCall' | 'announce'>;
  /** Whether the chat shows a waiting call (a call of its agent) as an inline card. */
  inChat: (callId: string) => boolean;
  modelSetup: Pick<ModelSetup, 'promptKey'>;
  audit: AuditLog;
  auditFile: string;
  grants: GrantStore;
  mcp: McpServers;
  endpoint: Pick<McpEndpointHost, 'copyConfig'>;
  suggestions: Pick<SuggestionsPanel, 'show'>;
  /** Which waiting call the keyboard decides: the focused card's (an Allow never decides a call out of view). */
  focus: Pick<FocusedCalls, 'target' | 'focusedCall'>;
}

export type CommandHandlers = Record<CommandId, (...args: unknown[]) => unknown>;

/** The commands handled here (the undo commands are in undoCommands.ts, the diff editor's in diffActions.ts). */
type CoreCommandId = Exclude<CommandId, UndoCommandId | DiffCommandId | 'toolgate.showStagedChanges' | 'toolgate.showTaskChanges'>;

/** The server a context-menu command was invoked on (a node of the MCP Servers view), if any. */
function serverOf(item: unknown): string | undefined {
  if (typeof item === 'object' && item !== null && 'server' in item && typeof item.server === 'string') {
    return item.server;
  }
  return undefined;
}

/** The audit log as a readable table (a Markdown preview of `audit.md` beside the log); resolves with its row count. */
async function showAuditTable(audit: AuditLog, auditFile: string): Promise<number> {
  await audit.flush();
  const text = await readFile(auditFile, 'utf8').catch(() => undefined);
  if (text === undefined) {
    void vscode.window.showInformationMessage('Toolgate: no decision has been logged in this workspace yet.');
    return 0;
  }
  // In the person's time zone (the extension host's: in a remote window, the remote machine's); the log keeps UTC.
  const table = auditTable(text, 1000, auditFile, Intl.DateTimeFormat().resolvedOptions().timeZone);
  const tableFile = vscode.Uri.file(path.join(path.dirname(auditFile), 'audit.md'));
  await vscode.workspace.fs.writeFile(tableFile, new TextEncoder().encode(table.markdown));
  try {
    await vscode.commands.executeCommand('markdown.showPreview', tableFile);
  } catch {
    await vscode.window.showTextDocument(tableFile, { preview: true });
  }
  return table.rows;
}

async function resetWorkspaceApprovals(grants: GrantStore, confirm: unknown): Promise<number> {
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
}

/** What a keyboard decision did: the call it settled, or why none. */
export type KeyDecision = { decided: true; callId: string; tool: string } | { decided: false; why: string };

/** A waiting call as a keyboard decision echoes it: "write_file src/a.ts", or a group's command. */
function described(call: PendingCallView): string {
  return call.group !== undefined ? `the changes of \`${call.group.command}\`` : `${call.tool} ${callWaiter(call, false).target}`;
}

/**
 * Allow once / deny from a command or its keybinding, for the call whose card holds the keyboard focus in the chat or
 * the panel. An Allow never decides a call the person cannot see: with no card focused, it brings the oldest waiting
 * call's card into view with the focus, and the next press decides it. Deny takes the oldest then (refusing unseen
 * loses nothing) and asks for an optional reason. Every decision is echoed in the status bar and to a screen reader.
 */
async function decideFocused(deps: Pick<CommandDeps, 'gate' | 'focus' | 'chat' | 'approvals' | 'inChat'>, allow: boolean, reasonArg: unknown): Promise<KeyDecision> {
  const { gate, focus, chat, approvals } = deps;
  const shown = (view: 'chat' | 'approvals' | 'suggestions'): boolean => (view === 'chat' ? chat.visible : view === 'approvals' && approvals.visible);
  const pending = pendingViews(gate);
  const focused = focus.focusedCall(pending, shown);
  const call = focused ?? (allow ? undefined : pending[0]);
  if (!call) {
    const first = pending[0];
    if (!first) {
      void vscode.window.showInformationMessage('Toolgate: no call is waiting for approval.');
      return { decided: false, why: 'no call is waiting' };
    }
    if (!(deps.inChat(first.callId) && chat.visible && chat.focusCall(first.callId))) {
      approvals.focusCall(first.callId);
    }
    const text = `Toolgate: ${described(first)} is in view; press again to allow it`;
    vscode.window.setStatusBarMessage(text, 6_000);
    return { decided: false, why: 'no card had the focus: the oldest waiting call was brought into view' };
  }
  let reason = typeof reasonArg === 'string' ? reasonArg : undefined;
  if (!allow && reasonArg === undefined) {
    reason = await vscode.window.showInputBox({
      title: `Toolgate: deny ${described(call)}`,
      prompt: 'Why? The reason goes back to the model (optional). Escape keeps the call waiting.',
      ignoreFocusOut: true,
    });
    if (reason === undefined) {
      return { decided: false, why: 'the deny was cancelled' };
    }
  }
  const trimmed = reason?.trim();
  const outcome = gate.settle(call, allow ? { action: 'allow-once' } : { action: 'deny', ...(trimmed ? { reason: trimmed } : {}) });
  if (!outcome.ok) {
    void vscode.window.showWarningMessage(`Toolgate: ${outcome.error}`);
    return { decided: false, why: outcome.error };
  }
  const echo = `Toolgate: ${allow ? 'allowed once' : 'denied'}: ${described(call)}`;
  vscode.window.setStatusBarMessage(echo, 6_000);
  chat.announce(echo);
  approvals.announce(echo);
  return { decided: true, callId: call.callId, tool: call.tool };
}

/** Shows the chat, then puts the focus in `field`: the view may still be loading its page, so it is asked until ready. */
async function focusChatField(chat: CommandDeps['chat'], field: 'prompt' | 'model-setup'): Promise<void> {
  await vscode.commands.executeCommand('toolgate.chat.focus');
  for (let tries = 0; tries < 50 && !chat.focusField(field); tries++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export function createCommands({ agent, gate, chat, approvals, modelSetup, audit, auditFile, grants, mcp, endpoint, suggestions, focus, inChat }: CommandDeps): Record<CoreCommandId, (...args: unknown[]) => unknown> {
  return {
    'toolgate.mcp.restart': (item?: unknown) => {
      const server = serverOf(item);
      return server !== undefined ? mcp.manager.restart(server) : mcp.reload();
    },
    'toolgate.mcp.stop': (item?: unknown) => {
      const server = serverOf(item);
      return server !== undefined ? mcp.manager.stop(server) : undefined;
    },
    'toolgate.mcp.showOutput': () => mcp.showOutput(),
    'toolgate.copyMcpEndpointConfig': () => endpoint.copyConfig(),
    'toolgate.openApprovals': () => approvals.show(),
    'toolgate.runTask': async (prompt?: unknown) => {
      let task = typeof prompt === 'string' ? prompt : undefined;
      task ??= await vscode.window.showInputBox({ title: 'Toolgate: Run Task', prompt: 'What should the agent do?', ignoreFocusOut: true });
      if (task === undefined || task.trim() === '') {
        return undefined;
      }
      return await agent.runTask(task.trim());
    },
    'toolgate.cancel': () => agent.cancel(),
    'toolgate.allowOnce': (arg?: unknown) => decideFocused({ gate, focus, chat, approvals, inChat }, true, arg),
    'toolgate.deny': (reason?: unknown) => decideFocused({ gate, focus, chat, approvals, inChat }, false, reason),
    'toolgate.focusPrompt': () => focusChatField(chat, 'prompt'),
    'toolgate.setUpModel': () => focusChatField(chat, 'model-setup'),
    'toolgate.newChat': () => {
      const outcome = agent.newChat();
      if (!outcome.ok) {
        void vscode.window.showWarningMessage(`Toolgate: ${outcome.error}`);
      }
    },
    'toolgate.setApiKey': () => modelSetup.promptKey(),
    'toolgate.showAuditLog': () => showAuditTable(audit, auditFile),
    'toolgate.showAuditLogRaw': async () => {
      await audit.flush();
      try {
        await vscode.window.showTextDocument(vscode.Uri.file(auditFile), { preview: true });
      } catch {
        void vscode.window.showInformationMessage('Toolgate: no decision has been logged in this workspace yet.');
      }
    },
    'toolgate.resetWorkspaceApprovals': (confirm?: unknown) => resetWorkspaceApprovals(grants, confirm),
    'toolgate.showSuggestions': () => suggestions.show(),
    // Every Toolgate setting, in the Settings editor (the chat's title menu).
    'toolgate.openSettings': () => vscode.commands.executeCommand('workbench.action.openSettings', '@ext:toolgate.toolgate'),
  };
}
