/**
 * What each command that takes an argument accepts, checked before the command does anything: any extension can run
 * a command with any value, not only the palette, a keybinding or a view. A wrong one is answered with what is wrong
 * (the undo commands check theirs in checkpoints/undoRunner.ts, the diff editor's take the editor's own URIs).
 */
import * as z from '../zod';
import { describeValue } from './tools/callInput';

/** The longest reason a deny takes: as long as a card's reason box sends (src/shared/approvals.ts). */
export const maxReasonChars = 4000;

const got = (what: string) => (issue: { input?: unknown }) => `${what}, got ${describeValue(issue.input)}`;

/** An MCP server: its name, or the node of the MCP Servers view it was run on (a server's or one of its tools'). */
const ServerArg = z.optional(z
  .union([z.string().check(z.minLength(1)), z.pipe(z.looseObject({ server: z.string().check(z.minLength(1)) }), z.transform((node) => node.server))], { error: got('takes an MCP server (its name, or a node of the MCP Servers view)') }));

const platformArg = 'takes { "platform": "linux" | "darwin" } or nothing';

export const commandArgs = {
  /** The task's prompt; absent, the person is asked for it. */
  'toolgate.runTask': z.optional(z.string({ error: got('takes a prompt (a string)') })),
  /** Nothing: the focused call, else the oldest waiting, is allowed. */
  'toolgate.allowOnce': z.undefined({ error: got('takes no argument') }),
  /** The reason, returned to the model; absent, the person is asked for one (an empty one is no reason). */
  'toolgate.deny': z.optional(z.string({ error: got('takes a reason (a string)') }).check(z.maxLength(maxReasonChars, `takes a reason of at most ${maxReasonChars} characters`))),
  /** `true` removes the grants without asking first. */
  'toolgate.resetWorkspaceApprovals': z.optional(z.boolean({ error: got('takes true (remove without asking) or nothing') })),
  /** Whose form of the policy to show: `{ platform: 'linux' | 'darwin' }`; absent, this machine's. */
  'toolgate.showSandboxPolicy': z.optional(z
    .strictObject({ platform: z.optional(z.enum(['linux', 'darwin'], { error: got(platformArg) })) }, { error: got(platformArg) })),
  'toolgate.mcp.restart': ServerArg,
  'toolgate.mcp.stop': ServerArg,
} as const;

export type ArgCommand = keyof typeof commandArgs;
export type CommandArg<C extends ArgCommand> = z.output<(typeof commandArgs)[C]>;

/** A command's argument, checked: its value, or the error ("toolgate.deny takes a reason (a string), got a number"). */
export function readCommandArg<C extends ArgCommand>(command: C, arg: unknown): { ok: true; value: CommandArg<C> } | { ok: false; error: string } {
  const parsed = commandArgs[command].safeParse(arg);
  if (parsed.success) {
    return { ok: true, value: parsed.data as CommandArg<C> };
  }
  return { ok: false, error: `${command} ${parsed.error.issues[0]?.message ?? 'takes another argument'}` };
}

/**
 * A command's argument, checked; a wrong one is refused with what is wrong (thrown: the caller's `executeCommand`
 * rejects with it).
 */
export function commandArgOrThrow<C extends ArgCommand>(command: C, arg: unknown): CommandArg<C> {
  const read = readCommandArg(command, arg);
  if (!read.ok) {
    throw new Error(`Toolgate: ${read.error}`);
  }
  return read.value;
}
