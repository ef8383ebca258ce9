/**
 * One staged change that goes to the gate: how it is shown and judged (a `write_file` of its path, with the diff from
 * the file as it is now to what the command left), and how it lands once decided.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { GateInput, GateResult } from '../approval/gate';
import { newCallId } from '../approval/broker';
import type { PathResolver } from '../approval/paths';
import type { ChangeRecorder } from '../checkpoints/recorder';
import type { TurnRef } from '../checkpoints/store';
import { diffText } from '../diff/lineDiff';
import { sha256Bytes } from '../files/encoding';
import { diffPreview } from '../review/diffPreview';
import type { Preview } from '../review/preview';
import { Beneath, beneathSupported } from '../sandbox/beneath';
import type { StagedChange } from '../sandbox/changeSet';
import { landChanges } from '../sandbox/landing';
import type { Stage } from '../sandbox/stage';
import { applyWrite } from './applyWrite';
import type { Proposal } from './fileTools';
import { gateCall } from './gateCall';
import type { GitAsk } from './gitChanges';
import { conflictWhy, conflictWords, shownPath, type Fate } from './landingSummary';
import type { FileSnapshot, WorkspaceFiles } from './ports';
import { beneathStep, changedMeanwhile, diskHash, stagedText } from './stagedFiles';
import { partOf, textToWrite } from './textToWrite';

/** What reviewing and landing one change needs of the landing's ports. */
export interface ReviewDeps {
  files: WorkspaceFiles;
  resolver: PathResolver;
  recorder?: Pick<ChangeRecorder, 'fileWritten'>;
}

/** What a change's review and landing read of the command's context (./stagedLanding's LandingContext). */
export interface ReviewContext {
  command: string;
  source: string;
  turn?: TurnRef;
}

/** A change that goes to the gate: how it is shown and judged, and how it lands if allowed. */
export interface Review {
  change: StagedChange;
  relative: string;
  absolute: string;
  input: GateInput & { callId: string };
  /** Text changes: what the diff is of, and what lands (hunks and edits apply to it). */
  proposal?: Proposal;
  /** A text file deleted: its text, for the undo (and the proposal is of it to nothing). */
  deletedText?: FileSnapshot;
  /** A change in `.git` that asks: why. */
  gitAsked?: string;
}

const describeChange = (change: StagedChange): string => {
  switch (change.kind) {
    case 'deleted':
      return 'deletes it';
    case 'mode':
      return `changes its mode to ${change.mode.toString(8)}`;
    case 'symlink':
      return `makes it a symbolic link to ${change.target}`;
    case 'folder':
      return 'creates the folder';
    default:
      return change.kind === 'created' ? 'creates it' : 'changes it';
  }
};

/** The gate input for one change, or why it cannot land at all. */
export async function reviewChange(deps: ReviewDeps, stage: Stage, change: StagedChange, context: ReviewContext, group: NonNullable<GateInput['group']>, git?: GitAsk): Promise<Review | { path: string; refused: string }> {
  const absolute = path.join(change.folder, change.path);
  const relative = shownPath(change, deps.resolver.roots);
  if ((await beneathStep(change, async (beneath) => { const link = await beneath.linkOnTheWay(change.path); if (link) { throw link; } }, () => Promise.resolve())) === 'link') {
    return { path: relative, refused: conflictWords.link };
  }
  const base = await deps.files.snapshot(absolute).catch(() => undefined);
  if (base === undefined) {
    return { path: relative, refused: 'it cannot be read as a file now' };
  }
  const meanwhile = change.kind === 'created' && base.exists ? 'it was created in the workspace while the command ran' : await changedMeanwhile(stage, absolute, base);
  // The group's card says whose change this is and that it is staged; a file's own notice is what is true of it alone.
  const notices = [
    ...(git !== undefined ? [`In git's own folder: the command ${git.why}.`] : []),
    ...(meanwhile === undefined ? [] : [`You changed this file while the command ran (${meanwhile}): allowing replaces your version with the command's.`]),
  ];
  // A ref move that changes a protected path shows that path's diff, not the ref file's one line: it lands whole.
  const asText = git?.preview === undefined;
  const text = asText && (change.kind === 'created' || change.kind === 'modified') && (!base.exists || base.format.kind === 'text') ? await stagedText(change.staged, base) : undefined;
  const deletedText = asText && change.kind === 'deleted' && base.exists && base.format.kind === 'text' ? base : undefined;
  const target = deps.resolver.resolve(absolute);
  let preview: Preview;
  let args: Record<string, unknown>;
  let proposal: Proposal | undefined;
  if (text !== undefined) {
    proposal = { target, base, newText: text };
    args = { path: absolute, content: text };
    preview = diffPreview(relative, !base.exists, diffText(base.exists ? base.text : '', text));
  } else if (deletedText !== undefined) {
    // Its diff is one hunk (all of it goes): accepted, the file is deleted; rejected, it stays. The proposal is for the
    // diff editor.
    proposal = { target, base: deletedText, newText: '' };
    args = { path: absolute, content: '', deleted: true };
    preview = { ...diffPreview(relative, false, diffText(deletedText.text, '')), note: 'The command deleted this file.' };
  } else if (git?.preview !== undefined) {
    args = { path: absolute, change: git.why };
    preview = git.preview;
  } else {
    const what = change.kind === 'created' || change.kind === 'modified' ? `${change.kind === 'created' ? 'creates' : 'replaces'} it whole with ${(await fs.stat(change.staged)).size.toLocaleString('en-US')} bytes that are not text in its encoding` : describeChange(change);
    args = { path: absolute, change: what };
    // No text to diff: one hunk that stands for the whole change, accepted or rejected with the rest of the review.
    preview = { kind: 'diff', path: relative, isNewFile: change.kind === 'created', added: 0, removed: 0, hunks: [{ header: `The command ${what}.`, rows: [] }], note: 'Not a text change: it lands whole, as the command left it, or not at all, and cannot be undone.' };
  }
  const call = gateCall('write_file', args, deps.resolver, { baseHash: base.hash });
  if (meanwhile !== undefined) {
    call.changedMeanwhile = meanwhile;
  }
  const input: Review['input'] = {
    callId: newCallId(),
    call,
    preview,
    source: context.source,
    notices,
    group,
    ...(text !== undefined ? { editable: { kind: 'content' as const, text } } : {}),
  };
  return { change, relative, absolute, input, ...(proposal ? { proposal } : {}), ...(deletedText ? { deletedText } : {}), ...(git !== undefined ? { gitAsked: git.why } : {}) };
}

export async function landReviewed(deps: ReviewDeps, stage: Stage, review: Review, decision: GateResult, context: ReviewContext): Promise<Fate> {
  if (decision.verdict === 'deny') {
    const why = decision.decidedBy === 'person' ? `you denied it${decision.personReason !== undefined ? `: "${decision.personReason}"` : ''}` : decision.decidedBy === 'cancel' ? (decision.cancelReason ?? 'cancelled') : decision.reason;
    return { kind: 'refused', why, ...(decision.decidedBy === 'person' ? { byPerson: true as const } : {}) };
  }
  const how = decision.decidedBy === 'person' ? 'asked' : 'rule';
  const { proposal, change } = review;
  const partial = partOf(proposal, decision);
  try {
    if (proposal !== undefined && review.deletedText === undefined) {
      const text = textToWrite(proposal, decision);
      // Checked again just before it is written (applyWrite): another change allowed meanwhile may have put a link on the way.
      const applied = await applyWrite(deps.files, proposal.target, proposal.base, text, `${review.relative} (from \`${context.command}\`)`);
      if (applied.kind === 'changed') {
        return { kind: 'refused', why: `${applied.detail} after it was shown` };
      }
      const mode = change.kind === 'created' || change.kind === 'modified' ? (change.mode ?? (await fs.stat(change.staged)).mode & 0o7777) : 0;
      if ((mode & 0o111) !== 0 && (await beneathStep(change, (beneath) => beneath.chmod(change.path, mode), () => fs.chmod(review.absolute, mode))) === 'link') {
        return { kind: 'refused', why: `its text landed, but not its mode: ${conflictWords.link}` };
      }
      await deps.recorder?.fileWritten(context.turn, {
        path: review.absolute,
        relativePath: review.relative,
        tool: 'run_in_terminal',
        before: proposal.base.exists ? proposal.base.text : null,
        after: text,
      });
      return { kind: 'landed', how, undoable: true, ...(partial !== undefined ? { partial } : {}) };
    }
    if (review.deletedText !== undefined) {
      // Only what was shown is deleted: the file must still be the text the diff was of.
      const onDisk = beneathSupported ? await Beneath.open(change.folder).then(async (beneath) => await beneath.readFile(change.path).then(sha256Bytes).finally(() => beneath.close())).catch(() => undefined) : await diskHash(review.absolute);
      if (onDisk !== review.deletedText.hash) {
        return { kind: 'refused', why: 'it changed after it was shown (or a folder on its path is now a symbolic link)' };
      }
      if ((await beneathStep(change, (beneath) => beneath.remove(change.path), () => fs.rm(review.absolute, { force: true }))) === 'link') {
        return { kind: 'refused', why: conflictWords.link };
      }
      await deps.recorder?.fileWritten(context.turn, { path: review.absolute, relativePath: review.relative, tool: 'run_in_terminal', before: review.deletedText.text, after: null });
      return { kind: 'landed', how, undoable: true };
    }
    // Allowed with the conflict shown: what lands is the command's, over the person's change.
    const landed = await landChanges(review.input.call.changedMeanwhile !== undefined ? { ...stage, startedMs: Number.POSITIVE_INFINITY } : stage, [change]);
    const conflict = landed.conflicts[0];
    return conflict === undefined ? { kind: 'landed', how, undoable: false } : { kind: 'refused', why: conflictWhy(conflict) };
  } catch (error) {
    return { kind: 'refused', why: `landing it failed: ${error instanceof Error ? error.message : String(error)}` };
  }
}
