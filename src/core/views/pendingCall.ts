/**
 * The panel's and the chat's view of each waiting call, built in one place from what the gate holds: what a call shows
 * (from its input and the policy's judgement) and its live state (hunk choices, the held edit, which actions are off).
 * The webview renders these and nothing else; the gate itself knows nothing of the webview contract.
 */
import type { CommandPreview, PendingCallView } from '../../shared/approvals';
import type { Gate, WaitingCall } from '../approval/gate';
import { writtenOrder } from '../approval/hash';
import type { GateCall, Judgement } from '../approval/policy';
import { actionsOff, grantsOffered, longestMinutes, type ActionsOff } from '../approval/choices';
import { grantable } from '../approval/waitingCall';
import { agentCaller, callerLabel, grantCaller } from '../callers';
import { grantOptionViews } from './grantOptionLabels';
import type { StagingStatus } from '../sandbox/commandSandbox';
import type { SubVerdict } from '../shell/rules';
import { unreviewedCardLine } from './unreviewed';

/** What the views read of the gate. */
export type GateState = Pick<Gate, 'waitingCalls' | 'liveRevision' | 'liveState' | 'evaluate'>;

/** A waiting call's views: the one built when it started waiting, and the last one with its live state. */
interface CachedViews {
  initial: PendingCallView;
  live?: { revision: string; view: PendingCallView };
}

/**
 * Keyed by the gate's waiting call, which is the same object while the call waits and is dropped when it settles, so
 * a settled call's views go with it.
 */
const cache = new WeakMap<WaitingCall, CachedViews>();

/**
 * What the panel shows of every waiting call, oldest first; with `chatId`, only the calls of that chat. A call's view
 * is the same object until its live state changes: the views tell a changed call by its object, so a new copy of each
 * of 500 waiting calls on every refresh made each refresh serialise all 500 again.
 */
export function pendingViews(gate: GateState, chatId?: string): PendingCallView[] {
  return withGroupReasons(gate.waitingCalls(chatId).map((call) => callView(gate, call)));
}

/**
 * One waiting call's view, as pendingViews has it (the same object), without building every other call's: undefined
 * when it no longer waits. A group's member is built with its group's others, whose reason the card says once.
 */
export function pendingView(gate: GateState, callId: string): PendingCallView | undefined {
  const waiting = gate.waitingCalls();
  const call = waiting.find((candidate) => candidate.callId === callId);
  if (call?.input.group === undefined) {
    return call === undefined ? undefined : callView(gate, call);
  }
  const groupId = call.input.group.id;
  const members = waiting.filter((member) => member.input.group?.id === groupId);
  return withGroupReasons(members.map((member) => callView(gate, member))).find((view) => view.callId === callId);
}

/** A waiting call's view: built once when it starts waiting, again only when its live state changed. */
function callView(gate: GateState, call: WaitingCall): PendingCallView {
  let views = cache.get(call);
  if (views === undefined) {
    views = { initial: pendingCallView(call) };
    cache.set(call, views);
  }
  const revision = gate.liveRevision(call.callId);
  if (revision === undefined) {
    return views.initial;
  }
  if (views.live?.revision === revision) {
    return views.live.view;
  }
  const { hunkChoices, edit, facts } = gate.liveState(call);
  const { off: _initialOff, ...rest } = views.initial; // the live facts decide what is off now
  const analysis = edit?.text === undefined ? undefined : editedCommandAnalysis(gate, call, edit.text);
  const view: PendingCallView = {
    ...rest,
    ...(hunkChoices !== undefined ? { hunkChoices } : {}),
    ...(edit !== undefined ? { edit: analysis === undefined ? edit : { ...edit, analysis } } : {}),
    ...offView(actionsOff(facts)),
  };
  views.live = { revision, view };
  return view;
}

const groupReasonCache = new WeakMap<PendingCallView, { reason: string; view: PendingCallView }>();

/**
 * The reason a group's files share, said once on its card: the one most of its waiting members give (on a tie, the
 * first member's), set on each member's group; a member whose reason it is says so (`reasonShared`), and a member with
 * another reason (a protected path among gated writes) keeps its own line. A view is the same object while unchanged.
 */
export function withGroupReasons(views: PendingCallView[]): PendingCallView[] {
  const counts = new Map<string, Map<string, number>>();
  for (const view of views) {
    if (view.group !== undefined) {
      const reasons = counts.get(view.group.id) ?? new Map<string, number>();
      reasons.set(view.reason, (reasons.get(view.reason) ?? 0) + 1);
      counts.set(view.group.id, reasons);
    }
  }
  if (counts.size === 0) {
    return views;
  }
  const shared = new Map<string, string>();
  for (const [id, reasons] of counts) {
    let best: [string, number] | undefined;
    for (const entry of reasons) {
      if (best === undefined || entry[1] > best[1]) {
        best = entry;
      }
    }
    if (best !== undefined) {
      shared.set(id, best[0]);
    }
  }
  return views.map((view) => {
    const reason = view.group === undefined ? undefined : shared.get(view.group.id);
    if (view.group === undefined || reason === undefined) {
      return view;
    }
    const cached = groupReasonCache.get(view);
    if (cached?.reason === reason) {
      return cached.view;
    }
    const { reasonShared: _shared, ...rest } = view;
    const withReason: PendingCallView = { ...rest, group: { ...view.group, reason }, ...(view.reason === reason ? { reasonShared: true as const } : {}) };
    groupReasonCache.set(view, { reason, view: withReason });
    return withReason;
  });
}

/**
 * How the card of a command says it runs: in the sandbox with the files it changes reviewed before they land, or in the
 * sandbox with them landing as they are; undefined for anything but a confined command (or when the host cannot say).
 */
export function commandSandboxView(tool: string, runsUnconfined: boolean, staging: StagingStatus | undefined): PendingCallView['sandbox'] {
  if (tool !== 'run_in_terminal' || runsUnconfined || staging === undefined) {
    return undefined;
  }
  return staging.staged ? 'reviewed' : staging.why === 'no-sandbox' ? undefined : 'unreviewed';
}

/**
 * An edited command judged as the proposal was (its chat's rules and grants), for the cards: the same lines as the
 * proposal's analysis, and the sentence. Allow runs it whatever this says (the person chose it, in the sandbox); this
 * is what the person reads before choosing. Undefined for anything but a command, or a command that cannot be read.
 */
function editedCommandAnalysis(gate: Pick<Gate, 'evaluate'>, call: WaitingCall, text: string): NonNullable<PendingCallView['edit']>['analysis'] {
  if (call.input.editedCall === undefined) {
    return undefined;
  }
  try {
    const edited = call.input.editedCall(text);
    const judgement = gate.evaluate(edited, { chatId: call.chatId, source: call.input.source, taskId: call.taskId });
    return { plain: judgement.plain, lines: commandAnalysisLines(edited, judgement) };
  } catch {
    return undefined;
  }
}

/** Everything the panel shows of a call that starts waiting, before the person touches it. */
export function pendingCallView(waiting: WaitingCall): PendingCallView {
  const { callId, batchId, input, judgement, options, waitingSince, timeoutSeconds } = waiting;
  const external = input.call.external;
  const pinned = external?.definitionHash;
  const redefined =
    pinned !== undefined &&
    waiting.activeGrants.some((grant) => grant.tool === input.call.tool && grant.definitionHash !== undefined && grant.definitionHash !== pinned);
  const unreviewed = judgement.runsUnconfined === true ? undefined : unreviewedCardLine(input.staging);
  const notices = [
    ...(unreviewed !== undefined ? [unreviewed] : []),
    ...(input.notices ?? []),
    ...(redefined
      ? ['The server changed this tool (its name, description or input schema) since you granted it, so that grant no longer applies. Read the description below again.']
      : []),
  ];
  const sandbox = commandSandboxView(input.call.tool, judgement.runsUnconfined === true, input.staging);
  const preview = input.preview.kind === 'command' ? { ...input.preview, analysis: commandAnalysisLines(input.call, judgement) } : input.preview;
  return {
    callId,
    batchId,
    tool: input.call.tool,
    source: input.source,
    callerLabel: callerLabel(input.source),
    reason: judgement.plain,
    warnings: [...notices, ...judgement.warnings],
    argsHash: input.call.argsHash,
    ...shownArgs(input.call.args),
    preview,
    grantable: grantable(waiting),
    grantsOffered: grantsOffered({ facts: { grantable: grantable(waiting) }, inTask: waiting.taskId !== undefined, ...(waiting.grantLimits !== undefined ? { grantLimits: waiting.grantLimits } : {}) }),
    ...(input.source !== agentCaller ? { grantsCover: callerLabel(grantCaller(input.source)) } : {}),
    ...(waiting.grantLimits !== undefined
      ? { grantLimits: { workspace: waiting.grantLimits.workspace, longestMinutes: longestMinutes(waiting.grantLimits), file: waiting.grantLimits.file } }
      : {}),
    ...(judgement.runsUnconfined === true ? { unconfined: true } : {}),
    ...(input.remedies !== undefined && input.remedies.length > 0 ? { remedies: input.remedies.map(({ id, label, title }) => ({ id, label, title })) } : {}),
    ...(sandbox !== undefined ? { sandbox } : {}),
    grantOptions: grantOptionViews(input.call, options),
    ...(external?.server !== undefined
      ? { toolInfo: { server: external.server, description: external.description ?? '', annotations: external.annotations ?? [] } }
      : {}),
    ...(input.editable ? { editable: shownEditable(input.editable) } : {}),
    ...(input.group ? { group: input.group } : {}),
    ...offView(actionsOff({ grantable: grantable(waiting), edited: false })),
    waitingSince: waitingSince.toISOString(),
    ...(timeoutSeconds > 0 ? { timesOutAt: new Date(waitingSince.getTime() + timeoutSeconds * 1000).toISOString() } : {}),
  };
}

/**
 * Past this many characters, a call's arguments are sent to the views with their long values cut: a 10,000-line
 * write_file carried its whole content here, on top of its diff, to every view with every new call (half of a
 * 1.6 MB post that took 170 ms to reach the panel). The person opens them whole in an editor (`openArgs`).
 */
export const argsInlineChars = 20_000;
/** In arguments over `argsInlineChars`, a string value longer than this shows its first `cutValueTo` characters. */
const cutValuesOver = 2_000;
const cutValueTo = 200;

/** The arguments as the card shows them: exact, or with long values cut and the whole's length (`argsCut`). */
export function shownArgs(args: unknown): Pick<PendingCallView, 'argsJson' | 'argsCut'> {
  // One pass over the arguments, keys in the order the call's hash writes them, long values cut as it goes and the
  // length of the whole counted: a 10,000-line file's content is escaped once or twice, not four times (through
  // canonicalJson, JSON.parse and two pretty prints it cost the host ~4 ms of every such card; npm run bench).
  let longer = 0;
  const cutText = JSON.stringify(args, ordered((item) => {
    const cut = `${item.slice(0, cutValueTo)}… (${(item.length - cutValueTo).toLocaleString('en-US')} more characters)`;
    longer += JSON.stringify(item).length - JSON.stringify(cut).length;
    return cut;
  }), 2);
  const wholeLength = cutText.length + longer;
  if (wholeLength > argsInlineChars) {
    return { argsJson: cutText, argsCut: wholeLength };
  }
  return { argsJson: longer === 0 ? cutText : JSON.stringify(args, ordered(undefined), 2) };
}

/**
 * A JSON.stringify replacer that writes each object's keys in canonicalJson's order (every key kept as data, even
 * `__proto__`: the copy has no prototype) and passes each string over `cutValuesOver` characters to `cut`, if given.
 */
function ordered(cut: ((item: string) => string) | undefined): (key: string, item: unknown) => unknown {
  return (_key, item) => {
    if (typeof item === 'string') {
      return cut !== undefined && item.length > cutValuesOver ? cut(item) : item;
    }
    if (item === null || typeof item !== 'object' || Array.isArray(item)) {
      return item;
    }
    const copy = Object.create(null) as Record<string, unknown>;
    for (const key of writtenOrder(Object.keys(item))) {
      copy[key] = (item as Record<string, unknown>)[key];
    }
    return copy;
  };
}

/**
 * Past this many rows in all, a diff goes to the views with its first `firstRows` rows and each cut hunk's row count;
 * a card asks for the rest once it has painted (`loadDiffRows`): a rewritten 10,000-line file is 20,000 rows, most of
 * the time from the host's post to the painted card (npm run bench).
 */
export const inlineRowsUpTo = 1_000;
const firstRows = 300;
const forViewsCache = new WeakMap<PendingCallView, PendingCallView>();

/** A waiting call's view as the webviews get it: a long diff with its first rows (the same object while unchanged). */
export function forViews(view: PendingCallView): PendingCallView {
  const preview = view.preview;
  if (preview.kind !== 'diff' || preview.hunks.reduce((sum, hunk) => sum + hunk.rows.length, 0) <= inlineRowsUpTo) {
    return view;
  }
  let cut = forViewsCache.get(view);
  if (cut === undefined) {
    let budget = firstRows;
    const hunks = preview.hunks.map((hunk) => {
      const keep = Math.min(budget, hunk.rows.length);
      budget -= keep;
      return keep === hunk.rows.length ? hunk : { header: hunk.header, rows: hunk.rows.slice(0, keep), rowCount: hunk.rows.length };
    });
    cut = { ...view, preview: { ...preview, hunks } };
    forViewsCache.set(view, cut);
  }
  return cut;
}

/**
 * Past this many characters the proposed content is not sent to the views for their Edit box (the same cost as the
 * arguments): a large file is edited in VS Code's diff editor, whose proposed side the host holds as the call's edit.
 */
export const editableInlineChars = 64 * 1024;

function shownEditable(editable: { kind: 'content' | 'command'; text: string }): NonNullable<PendingCallView['editable']> {
  return editable.kind === 'content' && editable.text.length > editableInlineChars
    ? { kind: 'content', chars: editable.text.length }
    : editable;
}

/**
 * The analysis the panel shows for a command: the sub-commands of a line of several, each with its verdict, the
 * redirects and the concerns. The line's verdict is the card's reason, so it is not repeated here, and neither is the
 * reason of the one sub-command the card's reason speaks of.
 */
export function commandAnalysisLines(call: GateCall, judgement: Judgement): CommandPreview['analysis'] {
  const analysis = call.commandAnalysis;
  const details = judgement.commandDetails ?? [];
  return [
    ...(details.length > 1 ? details : []).map((detail) => ({
      text: `${detail.text}: ${detail === judgement.commandSubject ? 'asks (the reason above)' : subCommandPlain(detail)}`,
      verdict: detail.verdict,
    })),
    ...(analysis?.redirects ?? []).map((redirect) => ({
      text: `redirect ${redirect.raw}${redirect.target !== undefined ? ` -> ${redirect.target}` : ' (target depends on an expansion)'}`,
      verdict: 'info' as const,
    })),
    ...(analysis?.concerns ?? []).map((concern) => ({ text: concern.detail, verdict: 'ask' as const })),
  ];
}

/** One sub-command's verdict in plain words: "allowed by `ls`", "no rule allows `wget` yet". */
function subCommandPlain(detail: SubVerdict): string {
  switch (detail.kind) {
    case 'allowed':
      return detail.rule !== undefined ? `allowed by \`${detail.rule}\`` : detail.reason;
    case 'no-rule':
      return `no rule allows \`${detail.name}\` yet`;
    case 'false-rule':
      return detail.falseRule !== undefined ? `\`${detail.falseRule}\` in toolgate.autoApprove.terminal sets it to always ask` : detail.reason;
    default:
      return detail.reason;
  }
}

/** The view's `off` field, present only when an action is off. */
function offView(off: ActionsOff | undefined): Pick<PendingCallView, 'off'> {
  return off === undefined ? {} : { off };
}
