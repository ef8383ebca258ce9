/**
 * What the approvals panel shows of a waiting call, and what it may send back. The host builds these; the panel
 * renders them and reports clicks. A decision names the call id and the arguments hash the panel was shown; the
 * host ignores any decision whose id is not waiting or whose hash differs.
 */
import * as z from '../zod';

export const CallId = z.string().check(z.minLength(1), z.maxLength(80), z.regex(/^[A-Za-z0-9_-]+$/));
export const ArgsHash = z.string().check(z.regex(/^[0-9a-f]{64}$/));

/** One line of a diff, compact: kind (context/add/del), old and new line numbers, text. */
export const DiffRow = z.tuple([z.enum(['c', 'a', 'd']), z.nullable(z.int()), z.nullable(z.int()), z.string()]);
export type DiffRow = z.infer<typeof DiffRow>;

const lineNumber = (value: unknown): boolean => value === null || Number.isInteger(value);

/** Exactly what `DiffRow` accepts, checked by hand. */
export function isDiffRow(row: unknown): row is DiffRow {
  return Array.isArray(row) && row.length === 4 && (row[0] === 'c' || row[0] === 'a' || row[0] === 'd')
    && lineNumber(row[1]) && lineNumber(row[2]) && typeof row[3] === 'string';
}

/**
 * A hunk's rows, checked with `isDiffRow` rather than by `z.array(DiffRow)`: a rewritten 10,000-line file is 20,000
 * rows, which zod took tens of milliseconds to check on each side of every post, most of the time from the host's post
 * to the painted diff. The same rows are accepted and refused (test/unit/messages.test.ts).
 */
export const DiffRows = z.custom<DiffRow[]>((rows) => Array.isArray(rows) && rows.every(isDiffRow), { message: 'each diff row is [c|a|d, line or null, line or null, text]' });

export const DiffHunkView = z.strictObject({
  header: z.string(),
  rows: DiffRows,
  /**
   * Present when the views got only this hunk's first rows (`rows`, maybe none) of this many: a long diff comes with
   * its first screenfuls, and the rest when the card asks (`loadDiffRows`).
   */
  rowCount: z.optional(z.int().check(z.nonnegative())),
});
export type DiffHunkView = z.infer<typeof DiffHunkView>;

export const DiffPreview = z.strictObject({
  kind: z.literal('diff'),
  path: z.string(),
  isNewFile: z.boolean(),
  added: z.int().check(z.nonnegative()),
  removed: z.int().check(z.nonnegative()),
  hunks: z.array(DiffHunkView),
  note: z.optional(z.string()),
});
export type DiffPreview = z.infer<typeof DiffPreview>;

export const CommandPreview = z.strictObject({
  kind: z.literal('command'),
  command: z.string(),
  cwd: z.string(),
  /** The analysis the engine gives, one line per finding. */
  analysis: z.array(z.strictObject({ text: z.string(), verdict: z.enum(['allow', 'ask', 'deny', 'info']) })),
});
export type CommandPreview = z.infer<typeof CommandPreview>;

export const Preview = z.discriminatedUnion('kind', [DiffPreview, CommandPreview, z.strictObject({ kind: z.literal('none') })]);
export type Preview = z.infer<typeof Preview>;

export const GrantOptionView = z.strictObject({ id: z.string().check(z.minLength(1), z.maxLength(40)), label: z.string() });
export type GrantOptionView = z.infer<typeof GrantOptionView>;

export const CallGroupView = z.strictObject({
  id: CallId,
  /** What made the calls: the command as it ran. */
  command: z.string(),
  /** How many changes the command made in the workspace in all (those that landed by a rule included). */
  changed: z.int().check(z.nonnegative()),
  /**
   * Why most of its files ask ("Writes a file; writes always ask"), said once on the card: a member whose own reason is
   * this one says `reasonShared`, and only the others show theirs (a protected path, say). Set by the views.
   */
  reason: z.optional(z.string()),
});
export type CallGroupView = z.infer<typeof CallGroupView>;

/**
 * Which of a waiting call's actions are off now, and why, from the host's rules of a person's choice: `allow` (Allow
 * once, or Run without sandbox), `grant` (every grant button), `allow-all` (the batch's Allow all, while this call is
 * in it). The views turn those buttons off with that reason and compute no rule themselves.
 */
export const ActionsOffView = z.strictObject({ allow: z.optional(z.string()), grant: z.optional(z.string()), 'allow-all': z.optional(z.string()) });
export type ActionsOffView = z.infer<typeof ActionsOffView>;

export const RemedyId = z.string().check(z.minLength(1), z.maxLength(40), z.regex(/^[a-z0-9-]+$/));

/**
 * A narrow fix the card of a command the sandbox made fail offers before "Run without sandbox" (allow the host the
 * proxy refused): a button sending `allow-remedy` with its `id`; `title` says what it does.
 */
export const RemedyView = z.strictObject({ id: RemedyId, label: z.string().check(z.maxLength(400)), title: z.string().check(z.maxLength(1000)) });
export type RemedyView = z.infer<typeof RemedyView>;

/** The actions that allow by making a grant: for the session, the agent's task, some minutes, the workspace. */
export const GrantAction = z.enum(['allow-session', 'allow-task', 'allow-minutes', 'allow-workspace']);
export type GrantAction = z.infer<typeof GrantAction>;

export const PendingCallView = z.strictObject({
  callId: CallId,
  batchId: z.string(),
  tool: z.string(),
  source: z.string(),
  reason: z.string(),
  warnings: z.array(z.string()),
  argsHash: ArgsHash,
  /** The arguments exactly, pretty-printed JSON: in full, or with long values cut (see `argsCut`). */
  argsJson: z.string(),
  /**
   * Long arguments: the length of the whole JSON, of which `argsJson` shows each long string value's start (marked "…
   * (N more characters)"); the views offer to open them whole in an editor (`openArgs`).
   */
  argsCut: z.optional(z.int().check(z.positive())),
  preview: Preview,
  /** Who asks, as the card names it ("from …"). */
  callerLabel: z.string(),
  /** Whether session/workspace grants can apply to this call at all. */
  grantable: z.boolean(),
  /** The grant buttons the card offers, in the order shown (none when no grant can cover the call). */
  grantsOffered: z.array(GrantAction),
  /** Whom a grant of this call covers, when not Toolgate's own agent: the card says grants cover it only. */
  grantsCover: z.optional(z.string()),
  /**
   * A managed settings file narrows grants here: whether workspace grants exist at all (when not, the card draws no
   * "Always allow in workspace", not even turned off), the longest a timed grant may last, and the file, for the note.
   */
  grantLimits: z.optional(z.strictObject({ workspace: z.boolean(), longestMinutes: z.int().check(z.gte(1), z.lte(1440)), file: z.string() })),
  /**
   * A command that would run without the sandbox: its card offers "Run without sandbox" (`allow-unconfined`) in place
   * of Allow once, which the host refuses for it.
   */
  unconfined: z.optional(z.boolean()),
  /** The narrow fixes offered first, each its own button (`data-action="allow-remedy"`, `data-remedy`). */
  remedies: z.optional(z.array(RemedyView).check(z.maxLength(8))),
  /**
   * A command that runs in the sandbox: whether the files it changes wait for the person's review before they land
   * (`reviewed`), or land in the workspace as they are (`unreviewed`, with a warning that says why). Absent for anything
   * else, and for a command that would run without the sandbox (`unconfined`).
   */
  sandbox: z.optional(z.enum(['reviewed', 'unreviewed'])),
  grantOptions: z.array(GrantOptionView),
  /**
   * What "Edit then allow" edits: the proposed file content or the command; absent when not editable. A large content
   * comes without its `text`, only its length: it is edited in VS Code's diff editor (`openDiff`), not in a box.
   */
  editable: z.optional(z.union([
    z.strictObject({ kind: z.enum(['content', 'command']), text: z.string() }),
    z.strictObject({ kind: z.literal('content'), chars: z.int().check(z.nonnegative()) }),
  ])),
  /** MCP calls: the server, the tool's description and annotations, shown but never trusted. */
  toolInfo: z.optional(z.strictObject({ server: z.string(), description: z.string(), annotations: z.array(z.string()) })),
  /**
   * A diff the person may decide hunk by hunk: the host-held choice of each hunk, in file order (the same live state
   * in the panel, the chat and the diff editor). Absent when the call cannot be decided hunk by hunk.
   */
  hunkChoices: z.optional(z.array(z.strictObject({ accepted: z.boolean(), reason: z.string().check(z.maxLength(4000)) })).check(z.maxLength(10_000))),
  /**
   * One of several calls the person decides together on one card: the files a staged command changed that ask
   * ("`npm run format` changed 12 files"). Each file is decided by its own hunk choices; Allow once or Deny on any
   * member, from any surface, settles every member of the group still waiting.
   */
  group: z.optional(CallGroupView),
  /** A member of a group whose reason is the group's (`group.reason`): the card says it once, not on this file. */
  reasonShared: z.optional(z.literal(true)),
  /**
   * The person's edit, held by the host (an edit made in the panel, the chat or the diff editor shows everywhere):
   * `text` while edited, with where; `revision`, which a decision names so it applies only the edit its view showed.
   * Present for a call that can be edited once it was edited (revision 0: never).
   */
  edit: z.optional(z.strictObject({
    revision: z.int().check(z.nonnegative()),
    text: z.optional(z.string().check(z.maxLength(50_000_000))),
    where: z.optional(z.enum(['panel', 'chat', 'diff-editor'])),
    /** An edited command, analysed as the proposal was: what the rules would say of it, and its findings. */
    analysis: z.optional(z.strictObject({ plain: z.string(), lines: CommandPreview.shape.analysis })),
  })),
  /** The actions that are off now, with why (absent: all on). */
  off: z.optional(ActionsOffView),
  waitingSince: z.string(),
  /** ISO time at which the call is denied for waiting too long, if a timeout is set. */
  timesOutAt: z.optional(z.string()),
});
export type PendingCallView = z.infer<typeof PendingCallView>;

export const GrantView = z.strictObject({
  id: z.string(),
  scope: z.enum(['session', 'workspace', 'task', 'timed']),
  label: z.string(),
  /** What it covers, without its scope: "run_in_terminal: commands starting with `npm test`". */
  covers: z.string(),
  createdAt: z.string(),
  /** Scope `timed`: when it ends (ISO time); the panel shows the time left. */
  expiresAt: z.optional(z.string()),
});
export type GrantView = z.infer<typeof GrantView>;

/** The settings whose `true` keys let a call run without asking. */
export const ruleSettings = ['toolgate.autoApprove.terminal', 'toolgate.autoApprove.edits', 'toolgate.gatedTools'] as const;
export const RuleSetting = z.enum(ruleSettings);
export type RuleSetting = z.infer<typeof RuleSetting>;

/** What let a call run without asking: the `true` keys of a setting, or a grant (which can be revoked). */
export const AllowedByView = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('rule'), setting: RuleSetting, keys: z.array(z.string()) }),
  z.strictObject({ kind: z.literal('grant'), grant: GrantView }),
]);
export type AllowedByView = z.infer<typeof AllowedByView>;

/**
 * `allow-task`: a grant for the agent's current task; `allow-minutes`: a grant for the next `minutes` minutes;
 * `allow-unconfined`: once, without the sandbox: the only allow of a call whose view says `unconfined`;
 * `allow-remedy`: one of the narrow fixes the call's view offers (`remedies`), named by its id.
 */
export const decisionActions = ['allow-once', 'allow-session', 'allow-workspace', 'allow-edited', 'deny', 'allow-task', 'allow-minutes', 'allow-unconfined', 'allow-remedy'] as const;
export const DecisionAction = z.enum(decisionActions);
export type DecisionAction = z.infer<typeof DecisionAction>;

/** The person's verdict on one hunk of the diff they were shown (index 0-based, in file order). */
export const HunkDecision = z.strictObject({
  index: z.int().check(z.nonnegative()),
  accepted: z.boolean(),
  /** A rejected hunk: why, returned to the model with that hunk. */
  reason: z.optional(z.string().check(z.maxLength(4000))),
});
export type HunkDecision = z.infer<typeof HunkDecision>;

export const DecideMessage = z
  .strictObject({
    type: z.literal('decide'),
    requestId: z.string().check(z.minLength(1), z.maxLength(64), z.regex(/^[A-Za-z0-9_-]+$/)),
    callId: CallId,
    argsHash: ArgsHash,
    action: DecisionAction,
    /** Deny: the person's reason, returned to the model. */
    reason: z.optional(z.string().check(z.maxLength(4000))),
    /** Session/workspace/task/minutes: which of the offered grant options. */
    grantOption: z.optional(z.string().check(z.minLength(1), z.maxLength(40))),
    /** allow-minutes: how long the grant lasts (the host checks the range again). */
    minutes: z.optional(z.int().check(z.gte(1), z.lte(24 * 60))),
    /** allow-remedy: which of the call's `remedies` (the host checks it was offered). */
    remedy: z.optional(RemedyId),
    /** allow-edited: the edited content or command. */
    edited: z.optional(z.string().check(z.maxLength(50_000_000))),
    /**
     * allow-once only: what is written is the base with only the accepted hunks applied; a hunk not listed counts
     * as accepted. Absent: the whole proposed change, as before.
     */
    hunks: z.optional(z.array(HunkDecision).check(z.maxLength(10_000))),
    /** The revision of the call's edit this view showed (`edit.revision`, 0 when none): another is refused. */
    editRevision: z.optional(z.int().check(z.nonnegative())),
  }).check(z.superRefine((message, context) => {
    if ((message.action === 'allow-remedy') !== (message.remedy !== undefined)) {
      context.addIssue({ code: 'custom', path: ['remedy'], message: 'a remedy is named with allow-remedy, and only with it' });
    }
    if (message.hunks === undefined) {
      return;
    }
    if (message.action !== 'allow-once') {
      context.addIssue({ code: 'custom', path: ['hunks'], message: `hunk decisions go only with allow-once, not ${message.action}` });
    }
    const seen = new Set<number>();
    for (const [position, hunk] of message.hunks.entries()) {
      if (seen.has(hunk.index)) {
        context.addIssue({ code: 'custom', path: ['hunks', position, 'index'], message: `hunk ${hunk.index} is listed twice` });
      }
      seen.add(hunk.index);
    }
  }));
export type DecideMessage = z.infer<typeof DecideMessage>;

/**
 * One hunk accepted or rejected in a view: the host holds the choice (bound to the call's hash) and publishes it to
 * every view; the call's `allow-once` then settles with the held choices. `reason`: a rejected hunk's reason so far.
 */
export const HunkChoiceMessage = z.strictObject({
  type: z.literal('chooseHunk'),
  requestId: z.string().check(z.minLength(1), z.maxLength(64), z.regex(/^[A-Za-z0-9_-]+$/)),
  callId: CallId,
  argsHash: ArgsHash,
  index: z.int().check(z.nonnegative(), z.lte(10_000)),
  choice: z.enum(['accept', 'reject']),
  reason: z.optional(z.string().check(z.maxLength(4000))),
});
export type HunkChoiceMessage = z.infer<typeof HunkChoiceMessage>;

/** The person's edit of a waiting call on this view (the panel's or the chat's box); `null` undoes it. */
export const SetEditMessage = z.strictObject({
  type: z.literal('setEdit'),
  requestId: z.string().check(z.minLength(1), z.maxLength(64), z.regex(/^[A-Za-z0-9_-]+$/)),
  callId: CallId,
  argsHash: ArgsHash,
  text: z.nullable(z.string().check(z.maxLength(50_000_000))),
});
export type SetEditMessage = z.infer<typeof SetEditMessage>;

export const BatchMessage = z.strictObject({
  type: z.literal('decideAll'),
  requestId: z.string().check(z.minLength(1), z.maxLength(64), z.regex(/^[A-Za-z0-9_-]+$/)),
  action: z.enum(['allow-all', 'deny-all']),
  /** The calls (id and hash) the panel showed when the person clicked; others are left waiting. */
  calls: z.array(z.strictObject({ callId: CallId, argsHash: ArgsHash })).check(z.minLength(1), z.maxLength(500)),
  reason: z.optional(z.string().check(z.maxLength(4000))),
});
export type BatchMessage = z.infer<typeof BatchMessage>;

export const OpenDiffMessage = z.strictObject({
  type: z.literal('openDiff'),
  requestId: z.string().check(z.minLength(1), z.maxLength(64), z.regex(/^[A-Za-z0-9_-]+$/)),
  callId: CallId,
});

/** A card's diff came with its first rows only: every hunk's rows, for the call with this hash (answered in `result`). */
export const LoadDiffRowsMessage = z.strictObject({
  type: z.literal('loadDiffRows'),
  requestId: z.string().check(z.minLength(1), z.maxLength(64), z.regex(/^[A-Za-z0-9_-]+$/)),
  callId: CallId,
  argsHash: ArgsHash,
});

/** Open a waiting call's whole arguments in an editor (the card shows long values cut). */
export const OpenArgsMessage = z.strictObject({
  type: z.literal('openArgs'),
  requestId: z.string().check(z.minLength(1), z.maxLength(64), z.regex(/^[A-Za-z0-9_-]+$/)),
  callId: CallId,
});

export const DiffMode = z.enum(['unified', 'split']);
export type DiffMode = z.infer<typeof DiffMode>;

/** The person chose unified or side by side: remembered for the workspace (later calls, reloads). */
export const SetDiffModeMessage = z.strictObject({
  type: z.literal('setDiffMode'),
  requestId: z.string().check(z.minLength(1), z.maxLength(64), z.regex(/^[A-Za-z0-9_-]+$/)),
  mode: DiffMode,
});

export const RevokeGrantMessage = z.strictObject({
  type: z.literal('revokeGrant'),
  requestId: z.string().check(z.minLength(1), z.maxLength(64), z.regex(/^[A-Za-z0-9_-]+$/)),
  grantId: z.string().check(z.minLength(1), z.maxLength(64)),
});

