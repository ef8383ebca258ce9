/**
 * The host <-> webview contract. Every message crossing the boundary is parsed with these schemas from `unknown`;
 * a message that does not validate is dropped (and the host logs it). Types are inferred, never cast.
 */
import * as z from 'zod';
import { BatchMessage, DecideMessage, GrantView, OpenDiffMessage, PendingCallView, RevokeGrantMessage } from './approvals';

export const viewKinds = ['chat', 'approvals'] as const;
export const ViewKind = z.enum(viewKinds);
export type ViewKind = z.infer<typeof ViewKind>;

/** Correlates a request from the webview with the host's answer. Short, printable, bounded. */
export const RequestId = z.string().min(1).max(64).regex(/^[A-Za-z0-9_-]+$/);

/** Host commands a webview may ask for. Anything else is not in the contract and is dropped. */
export const hostCommands = ['openApprovals', 'showAuditLog', 'setApiKey', 'focusChat', 'resetWorkspaceApprovals'] as const;
export const HostCommand = z.enum(hostCommands);
export type HostCommand = z.infer<typeof HostCommand>;

export const ReadyMessage = z.strictObject({
  type: z.literal('ready'),
  requestId: RequestId,
  view: ViewKind,
});

export const CommandMessage = z.strictObject({
  type: z.literal('command'),
  requestId: RequestId,
  command: HostCommand,
});

export const WebviewToHost = z.discriminatedUnion('type', [
  ReadyMessage,
  CommandMessage,
  DecideMessage,
  BatchMessage,
  OpenDiffMessage,
  RevokeGrantMessage,
]);
export type WebviewToHost = z.infer<typeof WebviewToHost>;

/** What the chat view shows about the session before the agent runs. */
export const ChatState = z.strictObject({
  view: z.literal('chat'),
  model: z.strictObject({ baseUrl: z.string(), name: z.string() }),
  waitingCalls: z.number().int().nonnegative(),
  trusted: z.boolean(),
});
export type ChatState = z.infer<typeof ChatState>;

/** What the approvals panel shows. The panel holds no truth: the host re-sends this whole state. */
export const ApprovalsState = z.strictObject({
  view: z.literal('approvals'),
  waitingCalls: z.number().int().nonnegative(),
  trusted: z.boolean(),
  pending: z.array(PendingCallView),
  grants: z.array(GrantView),
});
export type ApprovalsState = z.infer<typeof ApprovalsState>;

export const ViewState = z.discriminatedUnion('view', [ChatState, ApprovalsState]);
export type ViewState = z.infer<typeof ViewState>;

export const HostToWebview = z.discriminatedUnion('type', [
  /** The answer to `ready`: the first message the host posts to a webview. `sentAt`: host clock, ms since epoch. */
  z.strictObject({ type: z.literal('init'), requestId: RequestId, state: ViewState, sentAt: z.number() }),
  /** A later change of state, pushed by the host. */
  z.strictObject({ type: z.literal('state'), state: ViewState, sentAt: z.number() }),
  /** The outcome of a `command` request. */
  z.strictObject({
    type: z.literal('result'),
    requestId: RequestId,
    ok: z.boolean(),
    error: z.string().optional(),
  }),
]);
export type HostToWebview = z.infer<typeof HostToWebview>;

/** A short, single-line description of why a value failed a schema, for log lines. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(root)'}: ${issue.message}`)
    .join('; ');
}
