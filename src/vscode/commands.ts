/** The handlers of the contributed commands: each translates a VS Code command into a call on the core, or a prompt. */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import * as vscode from 'vscode';
import type { AgentSession } from '../core/agent/session';
import type { FocusedCalls } from '../core/views/focusedCall';
import type { Gate } from '../core/approval/gate';
import { decideFromCommand, type KeyPrompts } from '../core/views/keyDecision';
import type { GrantStore } from '../core/approval/grants';
import { resetWorkspaceGrants, type ResetPrompts } from '../core/approval/resetGrants';
import type { AuditLog } from '../core/audit/auditLog';
import { auditTable } from '../core/audit/auditTable';
import type { ApprovalsPanel } from './webviews/approvalsPanel';
import type { ChatViewProvider } from './webviews/chatViewProvider';
import type { CommandId, DiffCommandId, UndoCommandId } from '../core/commandIds';
import type { McpEndpointHost } from './mcp/mcpEndpoint';
import type { McpServers } from './mcp/mcpServers';
import type { ModelSetup } from '../core/llm/modelSetupFlow';
import type { SuggestionsPanel } from './webviews/suggestionsPanel';
import type { GateState } from '../core/views/pendingCall';
import { commandArgOrThrow, readCommandArg } from '../core/commandArgs';

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
type CoreCommandId = Exclude<CommandId, UndoCommandId | DiffCommandId | 'toolgate.showStagedChanges' | 'toolgate.showTaskChanges' | 'toolgate.showSandboxPolicy' | 'toolgate.setAuditExportHeaders'>;

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

/** What a reset of the workspace grants says and asks in VS Code (the flow is src/core/approval/resetGrants.ts). */
const resetPrompts: ResetPrompts = {
  info: (text) => void vscode.window.showInformationMessage(text),
  confirmRemove: async (question) => (await vscode.window.showWarningMessage(question, { modal: true }, 'Remove')) === 'Remove',
};

/** What a keyboard decision shows and asks in VS Code (the rule is src/core/views/keyDecision.ts). */
const keyPrompts: KeyPrompts = {
  info: (text) => void vscode.window.showInformationMessage(text),
  warn: (text) => void vscode.window.showWarningMessage(text),
  status: (text) => void vscode.window.setStatusBarMessage(text, 6_000),
  askReason: (title) => vscode.window.showInputBox({ title, prompt: 'Why? The reason goes back to the model (optional). Escape keeps the call waiting.', ignoreFocusOut: true }),
};

/** Shows the chat, then puts the focus in `field`, which the view takes once it is ready if it is still loading. */
async function focusChatField(chat: CommandDeps['chat'], field: 'prompt' | 'model-setup'): Promise<void> {
  await vscode.commands.executeCommand('toolgate.chat.focus');
  chat.focusField(field);
}

export function createCommands({ agent, gate, chat, approvals, modelSetup, audit, auditFile, grants, mcp, endpoint, suggestions, focus, inChat }: CommandDeps): Record<CoreCommandId, (...args: unknown[]) => unknown> {
  return {
    'toolgate.mcp.restart': (item?: unknown) => {
      const server = commandArgOrThrow('toolgate.mcp.restart', item);
      return server !== undefined ? mcp.manager.restart(server) : mcp.reload();
    },
    'toolgate.mcp.stop': (item?: unknown) => {
      const server = commandArgOrThrow('toolgate.mcp.stop', item);
      return server !== undefined ? mcp.manager.stop(server) : undefined;
    },
    'toolgate.mcp.showOutput': () => mcp.showOutput(),
    'toolgate.copyMcpEndpointConfig': () => endpoint.copyConfig(),
    'toolgate.openApprovals': () => approvals.show(),
    'toolgate.runTask': async (prompt?: unknown) => {
      let task = commandArgOrThrow('toolgate.runTask', prompt);
      task ??= await vscode.window.showInputBox({ title: 'Toolgate: Run Task', prompt: 'What should the agent do?', ignoreFocusOut: true });
      if (task === undefined || task.trim() === '') {
        return undefined;
      }
      return await agent.runTask(task.trim());
    },
    'toolgate.cancel': () => agent.cancel(),
    'toolgate.allowOnce': (arg?: unknown) => decideFromCommand({ gate, focus, chat, approvals, inChat, prompts: keyPrompts }, true, readCommandArg('toolgate.allowOnce', arg)),
    'toolgate.deny': (reason?: unknown) => decideFromCommand({ gate, focus, chat, approvals, inChat, prompts: keyPrompts }, false, readCommandArg('toolgate.deny', reason)),
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
    'toolgate.resetWorkspaceApprovals': (confirm?: unknown) => resetWorkspaceGrants(grants, commandArgOrThrow('toolgate.resetWorkspaceApprovals', confirm), resetPrompts),
    'toolgate.showSuggestions': () => suggestions.show(),
    // Every Toolgate setting, in the Settings editor (the chat's title menu).
    'toolgate.openSettings': () => vscode.commands.executeCommand('workbench.action.openSettings', '@ext:toolgate.toolgate'),
  };
}
