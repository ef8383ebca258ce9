/** The handlers of the contributed commands: each translates a VS Code command into a call on the core, or a prompt. */
import * as vscode from 'vscode';
import type { AgentSession } from '../core/agent/session';
import type { GrantStore } from '../core/approval/grants';
import type { AuditLog } from '../core/audit/auditLog';
import type { ApprovalsPanel } from './approvalsPanel';
import type { CommandId, UndoCommandId } from './commandIds';
import type { McpServers } from './mcpServers';
import type { ApiKeyStore } from './secrets';

export interface CommandDeps {
  agent: AgentSession;
  approvals: Pick<ApprovalsPanel, 'show'>;
  apiKeys: ApiKeyStore;
  audit: AuditLog;
  auditFile: string;
  grants: GrantStore;
  mcp: McpServers;
}

export type CommandHandlers = Record<CommandId, (...args: unknown[]) => unknown>;

/** The commands handled here (the undo commands are in undoCommands.ts). */
type CoreCommandId = Exclude<CommandId, UndoCommandId>;

/** The server a context-menu command was invoked on (a node of the MCP Servers view), if any. */
function serverOf(item: unknown): string | undefined {
  if (typeof item === 'object' && item !== null && 'server' in item && typeof item.server === 'string') {
    return item.server;
  }
  return undefined;
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

export function createCommands({ agent, approvals, apiKeys, audit, auditFile, grants, mcp }: CommandDeps): Record<CoreCommandId, (...args: unknown[]) => unknown> {
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
    'toolgate.resetWorkspaceApprovals': (confirm?: unknown) => resetWorkspaceApprovals(grants, confirm),
  };
}
