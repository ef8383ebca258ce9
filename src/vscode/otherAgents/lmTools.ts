/**
 * What Toolgate's language-model tools do when another agent calls one (registered at activation by src/extension.ts,
 * by the names of lmToolNames.ts): the call goes through the gate exactly as the agent's (cards, diffs, grants, rules,
 * the sandbox, the audit log, the caller named on the card), and the caller gets the text the model needs (written,
 * edited by the person, denied with the reason). The caller's cancellation cancels the waiting call.
 */
import * as vscode from 'vscode';
import { lmToolName, runLmTool, type LmToolSource } from '../../core/tools/lmTools';
import type { ToolService } from '../../core/tools/service';
import type { Log } from '../log';

/** The session the calls of language-model tools share (their session grants, their terminal). */
export const lmToolsChatId = 'vscode-lm-tools';

export interface LmTools {
  invoke(tool: LmToolSource, input: unknown, token: vscode.CancellationToken): Promise<vscode.LanguageModelToolResult>;
}

export function createLmTools(tools: Pick<ToolService, 'runOne'>, log: Log): LmTools {
  return {
    invoke: async (tool, input, token) => {
      const controller = new AbortController();
      const cancel = token.onCancellationRequested(() => controller.abort());
      try {
        const result = await runLmTool(tools, tool, input, { chatId: lmToolsChatId, signal: controller.signal });
        log.info(`[lm-tool] ${lmToolName(tool)}: ${result.ok ? 'done' : 'not done'}`);
        return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(result.output)]);
      } finally {
        cancel.dispose();
      }
    },
  };
}
