import type * as vscode from 'vscode';
import type { GateResult } from '../../core/approval/gate';
import type { AuditEntry } from '../../core/audit/auditLog';
import type { ToolCallRequest, ToolCallResult, ToolService } from '../../core/tools/service';

/**
 * A call as other extensions describe it: a tool name of the public contract (or their own), its arguments. Typed for
 * callers; at run time any value is answered in-band (src/core/tools/callInput.ts says what a call is).
 */
export type ToolgateCall = ToolCallRequest;

export interface ApprovalOutcome {
  approved: boolean;
  reason: string;
  decidedBy: GateResult['decidedBy'];
  /** When the person edited the call before allowing it: the content or command that must be used instead. */
  edited?: string;
}

/** What `activate()` returns: the gate for other extensions. */
export interface ToolgateApi {
  /** Waits for the gate's decision on a call (the person, a grant or a rule); runs nothing. */
  requestApproval(call: ToolgateCall): Promise<ApprovalOutcome>;
  /** The verdict and reason the policy gives right now, without asking or running anything. */
  evaluate(call: ToolgateCall): Promise<{ verdict: 'allow' | 'ask' | 'deny'; reason: string; warnings: string[] }>;
  /** Runs one of Toolgate's built-in tools through the gate, exactly as the agent would. */
  invokeTool(call: ToolgateCall): Promise<ToolCallResult>;
  /**
   * Where MCP clients reach the same gate in this window: the URL on the loopback address and the header with the
   * workspace's secret (what `Toolgate: Copy the MCP Endpoint's Config` shows), the same across reloads and restarts
   * unless the kept port was taken. Starts the endpoint on first use.
   */
  mcpEndpoint(): Promise<{ url: string; headers: Record<string, string> }>;
  /** Fires for every decision written to the audit log. */
  onDidDecide: vscode.Event<AuditEntry>;
}

/** The chat whose session grants apply to calls that come through the API. */
export const apiChatId = 'api';

/** The API over the tool service, except `onDidDecide` (the extension entry owns that event). */
export function createApi(tools: Pick<ToolService, 'requestApproval' | 'evaluate' | 'invokeTool'>, endpoint: { info(): Promise<{ url: string; headers: Record<string, string> }> }): Omit<ToolgateApi, 'onDidDecide'> {
  return {
    mcpEndpoint: () => endpoint.info(),
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
    invokeTool: (call) => tools.invokeTool(call, { chatId: apiChatId }),
  };
}
