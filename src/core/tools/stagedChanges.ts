/**
 * What a staged command wrote, brought into the workspace (issue "see what a command changed before it lands"). The
 * command ran with the workspace folders behind a copy-on-write stage (../sandbox/stage); when it ends, each change it
 * made is judged as a write by the same gate as `write_file`: edit rules, grants, protected paths, outside.
 *
 * - Lands without asking: what ../sandbox/landingRules says, and nothing else (git's data inside `.git` and ref moves
 *   that change no protected path; files the folder's repository ignores, with toolgate.sandbox.landIgnoredFiles on,
 *   unless a rule protects them; folders of those; allowed empty folders). This file does the I/O those rules need
 *   (git's answers) and lands them as the command left them; the rest of `.git` asks on the command's card.
 * - Everything else goes to the gate as a `write_file` of that path, with the diff from the file as it is now to what
 *   the command left: what a rule or grant allows lands at once; what asks waits in the panel and the chat like any
 *   edit (hunk by hunk, edit then allow, the diff editor), with a notice naming the command. A file the person changed
 *   while the command ran (on disk, or unsaved in an editor) always asks.
 * - Text files land through the editor's port (`WorkspaceFiles.apply`, byte-exact in the file's own encoding, open
 *   buffers updated) and join the task's checkpoint, so the undo reverts them like edits. Binary files, symlinks and
 *   mode changes land as the kernel left them and cannot be undone (the model and the person are told).
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { CallPlace, Gate, GateInput, GateResult } from '../approval/gate';
import type { GateCall } from '../approval/policy';
import { newCallId } from '../approval/broker';
import type { PathResolver } from '../approval/paths';
import type { TurnRef } from '../checkpoints/store';
import { groupLanded, landedWords } from '../checkpoints/landedUnreviewed';
import type { ChangeRecorder } from '../checkpoints/recorder';
import { diffText } from '../diff/lineDiff';
import { decodeFile, encodeText, sha256Bytes } from '../files/encoding';
import { diffPreview } from '../review/diffPreview';
import { applyHunksOf } from '../review/hunks';
import { Beneath, BeneathRefusal, beneathSupported } from '../sandbox/beneath';
import { classifyGitPath, describeMove, diskView, gitAskWords, gitPathOf, GitTrees, judgeRefChange, type GitView, type RefMove, type RefVerdict } from '../sandbox/gitData';
import type { Stage } from '../sandbox/stage';
import { readChangeSet, type StagedChange } from '../sandbox/changeSet';
import { emptyFolderLands, foldersLandingWhole, landingOrder, mayLandAsIgnored, type WriteJudged } from '../sandbox/landingRules';
import { changesUnderNewFolders, landChanges, type ConflictKind } from '../sandbox/landing';
import type { DiffRow, Preview } from '../review/preview';
import { applyWrite } from './applyWrite';
import type { Proposal } from './fileTools';
import { gateCall } from './gateCall';
import type { FileSnapshot, LogPort, WorkspaceFiles } from './ports';

export interface StagedLandingDeps {
  gate: Pick<Gate, 'request' | 'evaluate'>;
  files: WorkspaceFiles;
  resolver: PathResolver;
  recorder?: Pick<ChangeRecorder, 'fileWritten' | 'landedUnreviewed'>;
  log: LogPort;
  /** Of `paths` (relative to `folder`, `/` separators), those git ignores; none when it is not a repository. */
  ignored?: (folder: string, paths: readonly string[]) => Promise<ReadonlySet<string>>;
  /** toolgate.sandbox.landIgnoredFiles. */
  landIgnored: boolean;
  /** Keeps a waiting change's proposal for the diff editor while it waits; returns how to forget it. */
  keepProposal: (callId: string, proposal: Proposal) => () => void;
  /** A reviewed change landed or was refused (while others may still wait). */
  onSettled?: (relative: string, landed: boolean) => void;
}

export interface LandingContext {
  /** The command as it ran. */
  command: string;
  /** Who asked for the command ('agent', an extension id): its changes are theirs. */
  source: string;
  chatId: string;
  signal?: AbortSignal;
  turn?: TurnRef;
  /**
   * The protected files (absolute) the person allowed the command to write on its card, opened for its run: a change
   * the command made to one of them (created or modified, not changed by the person meanwhile) lands without asking
   * again. Every other change is judged as ever.
   */
  approved?: readonly string[];
}

/** Where the command's changes are judged: its chat, its caller's grants, its task. */
function placeOf(context: LandingContext): CallPlace {
  return { chatId: context.chatId, source: context.source, taskId: context.turn?.taskId };
}

/**
 * Whether a change lands as the person already allowed it on the command's card: a protected file the card named,
 * created or modified as a file (not deleted, not a link), not changed by the person while it ran, not in `.git`.
 */
function approvedOnCard(review: Pick<Review, 'change' | 'absolute' | 'input' | 'gitAsked'>, context: LandingContext): boolean {
  const { change } = review;
  return (context.approved ?? []).includes(review.absolute) && (change.kind === 'created' || change.kind === 'modified') && review.input.call.changedMeanwhile === undefined && review.gitAsked === undefined;
}

/** What became of one change, for the summary. */
export type Fate =
  /** `partial`: the person accepted some hunks of it, not all: "1 of 2 hunks; rejected: …". */
  | { kind: 'landed'; how: 'asked' | 'rule' | 'git' | 'ignored'; undoable: boolean; partial?: string }
  /** `byPerson`: the person denied it, or rejected every hunk of it. */
  | { kind: 'refused'; why: string; byPerson?: true };

export interface Outcome {
  path: string;
  fate: Fate;
  /** Landed unasked as git's data: which kind, and the refs it moved. */
  git?: { what: 'object' | 'index' | 'log' | 'scratch' | 'ref'; moves: RefMove[] };
  /** A change in `.git` that asked: why, for the summary. */
  gitAsked?: string;
}

/** A change in `.git` that asks: why, and for a ref move that changes a protected path, what the card shows. */
interface GitAsk {
  why: string;
  preview?: Preview;
}

/** A change that goes to the gate: how it is shown and judged, and how it lands if allowed. */
interface Review {
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

/** Allowed changes past which git is asked which are ignored, to move those in whole rather than one by one. */
const manyChanges = 200;

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

/** A write's judgement, as the rules of what lands unasked (../sandbox/landingRules) read it. */
const writeJudged = (judgement: { kind: string; verdict: string }): WriteJudged => ({ allowed: judgement.verdict === 'allow', gatedOnly: judgement.kind === 'gated' });

/**
 * The card's view of a ref move that changes protected paths: one hunk (the move lands whole or not at all) that says
 * what moves where, with each protected path's diff between the two trees.
 */
function refMovePreview(relative: string, repo: string, verdict: Extract<RefVerdict, { kind: 'protected' }>): Preview {
  const rows: DiffRow[] = [];
  let added = 0;
  let removed = 0;
  for (const change of verdict.changes) {
    const shown = repo === '' ? change.path : `${repo}/${change.path}`;
    const state = change.before === undefined && !change.binary ? 'created' : change.after === undefined && !change.binary ? 'deleted' : 'changed';
    rows.push(['c', null, null, `${shown} (${state}${change.binary === true ? ', not text' : ''}):`]);
    if (change.binary !== true) {
      const diff = diffText(change.before ?? '', change.after ?? '');
      added += diff.added;
      removed += diff.removed;
      rows.push(...diffPreview(shown, change.before === undefined, diff).hunks.flatMap((hunk) => hunk.rows));
    }
  }
  return {
    kind: 'diff',
    path: relative,
    isNewFile: false,
    added,
    removed,
    hunks: [{ header: `The command ${verdict.sentence}.`, rows }],
    note: 'A ref move: it lands whole or not at all. The rows are what the protected paths hold in the commit it pointed at and the one it points at now.',
  };
}

/** The text a staged file holds, when it can land as text: decoded in the file's own format and byte-exact. */
async function stagedText(staged: string, base: FileSnapshot): Promise<string | undefined> {
  const bytes = await fs.readFile(staged);
  const preferred = base.exists && base.format.kind === 'text' ? base.format.encoding : undefined;
  const decoded = await decodeFile(bytes, preferred);
  if (decoded.format.kind !== 'text') {
    return undefined;
  }
  // The write goes out in the base's format (a new file: UTF-8): the staged bytes must be exactly what that writes.
  const format = base.exists && base.format.kind === 'text' ? base.format : { kind: 'text' as const, encoding: 'utf8', bom: false };
  if (decoded.format.encoding !== format.encoding || decoded.format.bom !== format.bom) {
    return undefined;
  }
  const round = await encodeText(decoded.text, format);
  return Buffer.from(round).equals(bytes) ? decoded.text : undefined;
}

async function diskHash(absolute: string): Promise<string | undefined> {
  try {
    return sha256Bytes(await fs.readFile(absolute));
  } catch {
    return undefined;
  }
}

/**
 * Whether the person changed the file while the command ran: on disk after the stage was made, or in an editor
 * (the snapshot, which is an open buffer's text, is not what the disk holds).
 */
async function changedMeanwhile(stage: Stage, absolute: string, base: FileSnapshot): Promise<string | undefined> {
  const stat = await fs.lstat(absolute).catch(() => undefined);
  if (stat !== undefined && !stat.isDirectory() && stat.mtimeMs > stage.startedMs) {
    return 'it was changed in the workspace while the command ran';
  }
  if (stat?.isFile() === true && base.exists && (await diskHash(absolute)) !== base.hash) {
    return 'it has unsaved changes in an editor';
  }
  return undefined;
}

/** What the model is told of a change that did not land, by why (a failed step: its own words). */
const conflictWords: Record<Exclude<ConflictKind, 'failed'>, string> = {
  changed: 'changed in the workspace while the command ran',
  link: 'a folder on its path is now a symbolic link',
};
const conflictWhy = (conflict: { kind: ConflictKind; why: string }): string => (conflict.kind === 'failed' ? conflict.why : conflictWords[conflict.kind]);

/**
 * Runs one step on a change's path beneath its workspace folder (./../sandbox/beneath: never through a link); a link
 * on the way is answered as the refusal it is. Where descriptors cannot be walked (not Linux: no stage there either),
 * by path.
 */
async function beneathStep(change: StagedChange, step: (beneath: Beneath) => Promise<void>, byPath: () => Promise<void>): Promise<'done' | 'link'> {
  if (!beneathSupported) {
    await byPath();
    return 'done';
  }
  const beneath = await Beneath.open(change.folder);
  try {
    await step(beneath);
    return 'done';
  } catch (error) {
    if (error instanceof BeneathRefusal && error.kind === 'link') {
      return 'link';
    }
    throw error;
  } finally {
    await beneath.close();
  }
}

/** Paths in order (the kernel lists a folder in no useful order), the first `max` of them. */
function list(paths: readonly string[], max = 20): string {
  const sorted = [...paths].sort();
  return sorted.length <= max ? sorted.join(', ') : `${sorted.slice(0, max).join(', ')} and ${(sorted.length - max).toLocaleString('en-US')} more`;
}

/** The summary of what landed, for the model (and the person, in the chat's tool result). */
export function landingSummary(outcomes: readonly Outcome[], complete: boolean): string {
  if (outcomes.length === 0) {
    // Nothing to say of a command that wrote nothing in the workspace: its result stays as it was.
    return complete ? '' : 'It was stopped before its changes could be read whole; none landed.';
  }
  const landed = (how: Extract<Fate, { kind: 'landed' }>['how']): string[] =>
    outcomes.filter((entry) => entry.fate.kind === 'landed' && entry.fate.how === how).map((entry) => entry.path);
  const lines = ['Its changes to the workspace were staged and judged as writes:'];
  const partial = new Map(outcomes.flatMap((entry) => (entry.fate.kind === 'landed' && entry.fate.partial !== undefined ? [[entry.path, entry.fate.partial] as const] : [])));
  const reviewed = [...landed('rule'), ...landed('asked')].filter((path) => !partial.has(path));
  if (reviewed.length > 0) {
    lines.push(`- landed: ${list(reviewed)}`);
  }
  for (const [path, what] of [...partial].sort(([a], [b]) => a.localeCompare(b))) {
    lines.push(`- landed in part: ${path} (${what})`);
  }
  const ignored = landed('ignored');
  if (ignored.length > 0) {
    // Named, so the model never says the person accepted what nobody saw.
    lines.push(`- landed without review, unseen by the person (the folder's repository ignores them): ${landedWords(groupLanded(ignored))}`);
  }
  lines.push(...gitSummary(outcomes));
  const notUndoable = outcomes.filter((entry) => entry.fate.kind === 'landed' && !entry.fate.undoable && (entry.fate.how === 'rule' || entry.fate.how === 'asked')).map((entry) => entry.path);
  if (notUndoable.length > 0) {
    lines.push(`- cannot be undone (binary, link or mode changes): ${list(notUndoable)}`);
  }
  const refusals = outcomes.filter((entry): entry is Outcome & { fate: { kind: 'refused' } } => entry.fate.kind === 'refused');
  const byWhy = new Map<string, string[]>();
  for (const entry of refusals) {
    byWhy.set(entry.fate.why, [...(byWhy.get(entry.fate.why) ?? []), entry.path]);
  }
  for (const [why, paths] of byWhy) {
    lines.push(`- NOT landed (${why}): ${list(paths)}`);
  }
  if (!complete) {
    lines.push('- it was stopped before the stage could be read whole: deletions inside folders it removed and made again may be missing');
  }
  return lines.join('\n');
}

/**
 * What became of a staged command's changes, counted for the chat's entry of the command ("landed 5 files, rejected
 * 2"), so the person sees it without opening the result: reviewed files that landed whole and in part, those the
 * person rejected, those that could not land, and files that landed without review (git ignores them). Git's own data
 * in `.git` is not counted.
 */
export interface LandedCounts {
  landed: number;
  partly: number;
  rejected: number;
  notLanded: number;
  withoutReview: number;
}

export interface LandingReport {
  /** For the model (and the person, in the chat's tool result); '' when the command changed nothing in the workspace. */
  summary: string;
  counts: LandedCounts;
}

export function landedCounts(outcomes: readonly Pick<Outcome, 'fate' | 'git'>[]): LandedCounts {
  const counts: LandedCounts = { landed: 0, partly: 0, rejected: 0, notLanded: 0, withoutReview: 0 };
  for (const { fate, git } of outcomes) {
    if (fate.kind === 'refused') {
      counts[fate.byPerson === true ? 'rejected' : 'notLanded'] += 1;
    } else if (fate.how === 'ignored') {
      counts.withoutReview += 1;
    } else if (fate.how !== 'git' && git === undefined) {
      counts[fate.partial !== undefined ? 'partly' : 'landed'] += 1;
    }
  }
  return counts;
}

/** What happened in `.git`: git's data that landed unasked by kind, the refs it moved, and what asked and why. */
function gitSummary(outcomes: readonly Outcome[]): string[] {
  const lines: string[] = [];
  const data = outcomes.flatMap((entry) => (entry.git !== undefined && entry.fate.kind === 'landed' ? [{ path: entry.path, ...entry.git }] : []));
  const count = (what: string, one: string, many: string): string[] => {
    const n = data.filter((entry) => entry.what === what).length;
    return n === 0 ? [] : [n === 1 ? one : `${n.toLocaleString('en-US')} ${many}`];
  };
  const parts = [
    ...count('object', '1 new object', 'new objects'),
    ...count('index', 'the index', 'indexes'),
    ...count('log', '1 reflog', 'reflogs'),
    ...data.filter((entry) => entry.what === 'scratch').map((entry) => path.posix.basename(entry.path)),
    ...count('ref', '1 ref file', 'ref files'),
  ];
  if (parts.length > 0) {
    lines.push(`- git's data in .git, landed without review: ${parts.join(', ')}`);
  }
  const moves = data.flatMap((entry) => entry.moves);
  if (moves.length > 0) {
    lines.push(`- without review (no protected path changes), the command ${moves.map(describeMove).join('; ')}`);
  }
  const asked = new Map<string, string[]>();
  for (const entry of outcomes) {
    if (entry.gitAsked !== undefined) {
      asked.set(entry.gitAsked, [...(asked.get(entry.gitAsked) ?? []), entry.path]);
    }
  }
  for (const [why, paths] of asked) {
    lines.push(`- asked in .git (${why}): ${list(paths)}`);
  }
  return lines;
}

export class StagedLanding {
  constructor(private readonly deps: StagedLandingDeps) {}

  /**
   * Judges, reviews and lands the stage's changes; the stage is left for the caller to discard. Answers the summary
   * for the model ('' when the command changed nothing in the workspace) and what became of the changes, counted.
   */
  async land(stage: Stage, context: LandingContext): Promise<LandingReport> {
    const set = await readChangeSet(stage);
    const outcomes: Outcome[] = [];
    // Folders are made as what is in them lands; a deleted folder goes once it is empty.
    const files = set.changes.filter((change) => change.kind !== 'folder');
    const deletedFolders = new Set<StagedChange>();
    for (const change of files) {
      if (change.kind === 'deleted' && (await fs.lstat(path.join(change.folder, change.path)).catch(() => undefined))?.isDirectory() === true) {
        deletedFolders.add(change);
      }
    }
    const leaves = files.filter((change) => !deletedFolders.has(change));

    const { data: git, asks: gitAsks } = await this.gitChanges(stage, leaves, placeOf(context));
    const rest = leaves.filter((change) => !git.has(change));
    const ignored = await this.ignoredOf(rest.filter((change) => !gitAsks.has(change)), placeOf(context));
    // A new folder with files, all of which land directly, goes with them, and so do the folders inside it (moved
    // whole: an `npm install` is one rename).
    const directFiles = new Set<StagedChange>([...git.keys(), ...ignored]);
    const directFolders = foldersLandingWhole(set.changes, directFiles);
    // Objects land first and refs last, so git never reads a ref to an object that is not there yet.
    const direct = set.changes
      .filter((change) => directFiles.has(change) || (change.kind === 'folder' && directFolders.has(`${change.folder}\0${change.path}`)))
      .map((change, index) => ({ change, index, order: landingOrder(change) }))
      .sort((a, b) => a.order - b.order || a.index - b.index)
      .map((entry) => entry.change);
    const underAll = changesUnderNewFolders(set.changes);
    const landedDirect = await landChanges(stage, direct);
    for (const change of landedDirect.landed.filter((landed) => landed.kind !== 'folder')) {
      const data = git.get(change);
      outcomes.push({ path: this.shown(change), fate: { kind: 'landed', how: data !== undefined ? 'git' : 'ignored', undoable: false }, ...(data !== undefined ? { git: data } : {}) });
    }
    for (const conflict of landedDirect.conflicts) {
      outcomes.push({ path: this.shown(conflict.change), fate: { kind: 'refused', why: conflictWhy(conflict) } });
    }

    const ignoredSet = new Set(ignored);
    const judged = rest.filter((change) => !ignoredSet.has(change));
    const reviews: Review[] = [];
    // What asks is decided on one card: "`npm run format` changed 12 files".
    const group = { id: newCallId(), command: context.command, changed: leaves.length };
    for (const change of judged) {
      const asked = gitAsks.get(change);
      const review = await this.review(stage, change, context, group, asked);
      if ('refused' in review) {
        outcomes.push({ path: review.path, fate: { kind: 'refused', why: review.refused }, ...(asked !== undefined ? { gitAsked: asked.why } : {}) });
      } else if (approvedOnCard(review, context)) {
        const allowed: GateResult = { verdict: 'allow', callId: review.input.callId, decidedBy: 'person', scope: 'once', reason: "allowed once by the person on the command's card" };
        const fate = await this.landReviewed(stage, review, allowed, context);
        this.deps.onSettled?.(review.relative, fate.kind === 'landed');
        outcomes.push({ path: review.relative, fate });
      } else {
        reviews.push(review);
      }
    }
    if (reviews.length > 0) {
      const forget = reviews.flatMap((review) => (review.proposal ? [this.deps.keepProposal(review.input.callId, review.proposal)] : []));
      try {
        const decisions = this.deps.gate.request(
          reviews.map((review) => review.input),
          // The command was the call (and counted toward the task's caps); its changed files are not calls of their own.
          { chatId: context.chatId, ...(context.signal ? { signal: context.signal } : {}), turn: context.turn, uncapped: true },
        );
        // Each lands as soon as it is decided (what a rule allows, at once, while the rest waits for the person).
        const fates = await Promise.all(
          reviews.map(async (review, index): Promise<Fate> => {
            const decision = await (decisions[index] ?? Promise.reject(new Error('the gate returned no decision'))).catch(
              (error: unknown): GateResult => ({ verdict: 'deny', callId: '', decidedBy: 'cancel', reason: String(error), cancelReason: String(error) }),
            );
            const fate = await this.landReviewed(stage, review, decision, context);
            this.deps.onSettled?.(review.relative, fate.kind === 'landed');
            return fate;
          }),
        );
        reviews.forEach((review, index) =>
          outcomes.push({ path: review.relative, fate: fates[index] ?? { kind: 'refused', why: 'no decision' }, ...(review.gitAsked !== undefined ? { gitAsked: review.gitAsked } : {}) }),
        );
      } finally {
        for (const done of forget) {
          done();
        }
      }
    }
    await this.removeEmptied(deletedFolders);
    outcomes.push(...(await this.makeEmptyFolders(set.changes, underAll, placeOf(context))));
    // The task's changed files count what landed unseen, as they list what was reviewed.
    const unseen = outcomes.filter((entry) => entry.fate.kind === 'landed' && (entry.fate.how === 'ignored' || entry.fate.how === 'git')).map((entry) => entry.path);
    if (unseen.length > 0) {
      await this.deps.recorder?.landedUnreviewed(context.turn, { command: context.command, paths: unseen });
    }
    return { summary: landingSummary(outcomes, set.complete), counts: landedCounts(outcomes) };
  }

  /**
   * How a change's path is shown: as the command wrote it, relative to its workspace folder (named first when there
   * are several). Never through the links on the way, which may have changed since.
   */
  private shown(change: StagedChange): string {
    return this.deps.resolver.roots.length > 1 ? `${path.basename(change.folder)}/${change.path}` : change.path;
  }

  /**
   * The changes inside `.git` folders, by ../sandbox/gitData's rule: git's data that lands unasked (ref moves after
   * their trees are compared, once per repository) and what asks, with why.
   */
  private async gitChanges(stage: Stage, leaves: readonly StagedChange[], place: CallPlace): Promise<{ data: Map<StagedChange, NonNullable<Outcome['git']>>; asks: Map<StagedChange, GitAsk> }> {
    const data = new Map<StagedChange, NonNullable<Outcome['git']>>();
    const asks = new Map<StagedChange, GitAsk>();
    type Repo = { folder: string; repo: string; changes: Map<string, StagedChange>; refs: string[] };
    const repos = new Map<string, Repo>();
    for (const change of leaves) {
      const at = gitPathOf(change.path);
      if (at === undefined || change.kind === 'folder') {
        continue;
      }
      const key = `${change.folder}\0${at.repo}`;
      const repo: Repo = repos.get(key) ?? { folder: change.folder, repo: at.repo, changes: new Map<string, StagedChange>(), refs: [] };
      repos.set(key, repo);
      repo.changes.set(at.inner, change);
      const rule = classifyGitPath(at.inner, change.kind);
      if (rule.lands === 'data') {
        data.set(change, { what: rule.what, moves: [] });
      } else if (rule.lands === 'ref') {
        repo.refs.push(at.inner);
      } else {
        asks.set(change, { why: gitAskWords[rule.kind] });
      }
    }
    for (const { folder, repo, changes, refs } of repos.values()) {
      if (refs.length === 0) {
        continue;
      }
      const gitDir = path.join(folder, repo, '.git');
      const before = diskView(gitDir);
      const after: GitView = async (inner) => {
        const change = changes.get(inner);
        switch (change?.kind) {
          case undefined:
          case 'mode':
            return before(inner);
          case 'created':
          case 'modified':
            return fs.readFile(change.staged, 'utf8');
          case 'deleted':
            return undefined;
          default:
            throw new Error(`.git/${inner} is now a symbolic link`);
        }
      };
      const upper = stage.folders.find((entry) => entry.folder === folder)?.dir;
      const newObjects = upper === undefined ? undefined : path.join(upper, 'upper', repo, '.git', 'objects');
      const hasNew = newObjects !== undefined && (await fs.lstat(newObjects).catch(() => undefined))?.isDirectory() === true;
      const trees = new GitTrees(path.join(gitDir, 'objects'), hasNew ? newObjects : undefined);
      // Protected as the gate judges a write there: a protected path, or anything at all in an untrusted workspace. By
      // the path the tree names (no file on disk to resolve: it is in a commit), as ignoredOf does.
      const isProtected = (repoPath: string): boolean => {
        const relative = repo === '' ? repoPath : `${repo}/${repoPath}`;
        const absolute = path.join(folder, relative);
        const call: GateCall = { tool: 'write_file', args: { path: absolute }, argsHash: '', target: { input: absolute, absolute, real: absolute, root: folder, relative } };
        const kind = this.deps.gate.evaluate(call, place).kind;
        return kind === 'protected' || kind === 'untrusted';
      };
      try {
        for (const inner of refs) {
          const change = changes.get(inner);
          if (change === undefined) {
            continue;
          }
          const verdict = await judgeRefChange(inner, before, after, isProtected, trees);
          if (verdict.kind === 'clean') {
            data.set(change, { what: 'ref', moves: verdict.moves });
          } else {
            asks.set(change, { why: verdict.sentence, ...(verdict.kind === 'protected' ? { preview: refMovePreview(this.shown(change), repo, verdict) } : {}) });
          }
        }
      } finally {
        await trees.dispose();
      }
    }
    return { data, asks };
  }

  /**
   * Of `changes`, those that land as git-ignored files: the setting on, git ignores them, and the policy would allow
   * them or ask only because writes are gated (never a protected path, a `false` rule, an untrusted workspace or
   * anything else that always asks). The policy is asked first, in process, so git (a process start, about 15 ms) runs
   * only when a change would otherwise wait for the person, or when so many are allowed that moving the ignored ones
   * in as they are beats writing each through the editor.
   */
  private async ignoredOf(changes: readonly StagedChange[], place: CallPlace): Promise<StagedChange[]> {
    if (!this.deps.landIgnored || this.deps.ignored === undefined || changes.length === 0) {
      return [];
    }
    const byFolder = new Map<string, StagedChange[]>();
    let wouldAsk = 0;
    for (const change of changes) {
      // The target as the command wrote it (links on the way are checked again when it lands).
      const absolute = path.join(change.folder, change.path);
      const call: GateCall = { tool: 'write_file', args: { path: absolute }, argsHash: '', target: { input: absolute, absolute, real: absolute, root: change.folder, relative: change.path } };
      const judgement = this.deps.gate.evaluate(call, place);
      if (mayLandAsIgnored(writeJudged(judgement))) {
        wouldAsk += judgement.verdict === 'allow' ? 0 : 1;
        const inFolder = byFolder.get(change.folder) ?? [];
        inFolder.push(change);
        byFolder.set(change.folder, inFolder);
      }
    }
    if (wouldAsk === 0 && changes.length < manyChanges) {
      return [];
    }
    const found: StagedChange[] = [];
    for (const [folder, inFolder] of byFolder) {
      const ignored = await this.deps.ignored(folder, inFolder.map((change) => change.path)).catch((error: unknown) => {
        this.deps.log.warn(`staged changes: git could not say which files it ignores in ${folder} (${String(error)}); every change is judged`);
        return new Set<string>();
      });
      found.push(...inFolder.filter((change) => ignored.has(change.path)));
    }
    return found;
  }

  /** The gate input for one change, or why it cannot land at all. */
  private async review(stage: Stage, change: StagedChange, context: LandingContext, group: NonNullable<GateInput['group']>, git?: GitAsk): Promise<Review | { path: string; refused: string }> {
    const absolute = path.join(change.folder, change.path);
    const relative = this.shown(change);
    if ((await beneathStep(change, async (beneath) => { const link = await beneath.linkOnTheWay(change.path); if (link) { throw link; } }, () => Promise.resolve())) === 'link') {
      return { path: relative, refused: conflictWords.link };
    }
    const base = await this.deps.files.snapshot(absolute).catch(() => undefined);
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
    const target = this.deps.resolver.resolve(absolute);
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
    const call = gateCall('write_file', args, this.deps.resolver, { baseHash: base.hash });
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

  private async landReviewed(stage: Stage, review: Review, decision: GateResult, context: LandingContext): Promise<Fate> {
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
        const applied = await applyWrite(this.deps.files, proposal.target, proposal.base, text, `${review.relative} (from \`${context.command}\`)`);
        if (applied.kind === 'changed') {
          return { kind: 'refused', why: `${applied.detail} after it was shown` };
        }
        const mode = change.kind === 'created' || change.kind === 'modified' ? (change.mode ?? (await fs.stat(change.staged)).mode & 0o7777) : 0;
        if ((mode & 0o111) !== 0 && (await beneathStep(change, (beneath) => beneath.chmod(change.path, mode), () => fs.chmod(review.absolute, mode))) === 'link') {
          return { kind: 'refused', why: `its text landed, but not its mode: ${conflictWords.link}` };
        }
        await this.deps.recorder?.fileWritten(context.turn, {
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
        await this.deps.recorder?.fileWritten(context.turn, { path: review.absolute, relativePath: review.relative, tool: 'run_in_terminal', before: review.deletedText.text, after: null });
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

  /** Deleted folders, deepest first, once everything in them went (a folder with a change refused in it stays). */
  private async removeEmptied(folders: ReadonlySet<StagedChange>): Promise<void> {
    const deepestFirst = [...folders].sort((a, b) => b.path.split('/').length - a.path.split('/').length);
    for (const folder of deepestFirst) {
      await beneathStep(folder, (beneath) => beneath.rmdir(folder.path), () => fs.rmdir(path.join(folder.folder, folder.path))).catch(() => undefined);
    }
  }

  /** New folders the command left empty (nothing in them to land). */
  /**
   * New folders the command left empty (nothing in them to judge): made where a write there would be allowed, or git
   * ignores them; otherwise left out and said, so a Deny of everything leaves no folder behind either.
   */
  private async makeEmptyFolders(changes: readonly StagedChange[], underAll: ReadonlyMap<StagedChange, number>, place: CallPlace): Promise<Outcome[]> {
    const empty: StagedChange[] = [];
    for (const change of changes) {
      if (change.kind === 'folder' && (underAll.get(change) ?? 0) === 0 && (await fs.lstat(path.join(change.folder, change.path)).catch(() => undefined)) === undefined) {
        empty.push(change);
      }
    }
    const ignored = new Set(await this.ignoredOf(empty, place));
    const outcomes: Outcome[] = [];
    for (const change of empty) {
      const absolute = path.join(change.folder, change.path);
      const allowed = emptyFolderLands(ignored.has(change), writeJudged(this.deps.gate.evaluate(gateCall('write_file', { path: absolute }, this.deps.resolver), place)));
      if (allowed && (await beneathStep(change, (beneath) => beneath.mkdir(change.path), () => fs.mkdir(absolute, { recursive: true }).then(() => undefined))) === 'link') {
        outcomes.push({ path: `${this.shown(change)}/`, fate: { kind: 'refused', why: conflictWords.link } });
      } else if (!allowed) {
        outcomes.push({ path: `${this.shown(change)}/`, fate: { kind: 'refused', why: 'an empty folder, which would ask: make it yourself if you want it' } });
      }
    }
    return outcomes;
  }
}

/** One change a running command has staged so far, as the person is shown it on request. */
export interface ChangeSoFar {
  /** As the summary names it: relative to its folder (named first when there are several). */
  path: string;
  absolute: string;
  kind: Exclude<StagedChange['kind'], 'folder'>;
  /** Created or modified: the staged copy, to show beside the workspace's. */
  staged?: string;
}

/**
 * What a command still running has changed so far in its stage (issue "see what a command changed", long-running
 * commands): read from the stage as it is now, nothing landed or judged. Folders are left out (what is in them is
 * listed); a file the command is still writing shows as far as it got.
 */
export async function changesSoFar(stage: Stage, roots: readonly string[]): Promise<ChangeSoFar[]> {
  const set = await readChangeSet(stage);
  const files = set.changes.filter((change): change is Exclude<StagedChange, { kind: 'folder' }> => change.kind !== 'folder');
  return files
    .map((change) => ({
      path: roots.length > 1 ? `${path.basename(change.folder)}/${change.path}` : change.path,
      absolute: path.join(change.folder, change.path),
      kind: change.kind,
      ...(change.kind === 'created' || change.kind === 'modified' ? { staged: change.staged } : {}),
    }))
    .sort((a, b) => a.path.localeCompare(b.path));
}

/** What the model is told of a change allowed with some hunks rejected: "1 of 2 hunks; rejected hunk 2: why". */
function partOf(proposal: Proposal | undefined, decision: Extract<GateResult, { verdict: 'allow' }>): string | undefined {
  if (proposal === undefined || decision.hunks === undefined) {
    return undefined;
  }
  const rejected = decision.hunks.filter((hunk) => !hunk.accepted);
  const total = diffText(proposal.base.text, proposal.newText).hunks.length;
  if (rejected.length === 0) {
    return undefined;
  }
  const why = rejected.map((hunk) => `hunk ${hunk.index + 1}${hunk.reason !== undefined ? `: "${hunk.reason}"` : ''}`).join(', ');
  return `${total - rejected.length} of ${total} hunks; rejected ${why}`;
}

/** The text an allowed write lands: the base with the accepted hunks of the shown diff, the person's edit, or all. */
export function textToWrite(proposal: Proposal, decision: Extract<GateResult, { verdict: 'allow' }>): string {
  if (decision.hunks === undefined) {
    return decision.edited ?? proposal.newText;
  }
  const shown = diffText(proposal.base.text, proposal.newText).hunks;
  const decided = new Map(decision.hunks.map((hunk) => [hunk.index, hunk]));
  const accepted = new Set(shown.map((_, index) => index).filter((index) => decided.get(index)?.accepted ?? true));
  return applyHunksOf(proposal.base.text, proposal.newText, shown, accepted);
}
