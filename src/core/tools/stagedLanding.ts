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
import type { CallPlace, Gate, GateResult } from '../approval/gate';
import type { GateCall } from '../approval/policy';
import { newCallId } from '../approval/broker';
import type { PathResolver } from '../approval/paths';
import type { TurnRef } from '../checkpoints/store';
import type { ChangeRecorder } from '../checkpoints/recorder';
import { readChangeSet, type StagedChange } from '../sandbox/changeSet';
import { emptyFolderLands, foldersLandingWhole, landingOrder, mayLandAsIgnored, type WriteJudged } from '../sandbox/landingRules';
import { changesUnderNewFolders, landChanges } from '../sandbox/landing';
import type { Stage } from '../sandbox/stage';
import type { Proposal } from './fileTools';
import { gateCall } from './gateCall';
import { gitChanges } from './gitChanges';
import { conflictWhy, conflictWords, landedCounts, landingSummary, shownPath, type Fate, type LandingReport, type Outcome } from './landingSummary';
import type { LogPort, WorkspaceFiles } from './ports';
import { beneathStep } from './stagedFiles';
import { landReviewed, reviewChange, type Review } from './stagedReview';

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

/** Allowed changes past which git is asked which are ignored, to move those in whole rather than one by one. */
const manyChanges = 200;

/** A write's judgement, as the rules of what lands unasked (../sandbox/landingRules) read it. */
const writeJudged = (judgement: { kind: string; verdict: string }): WriteJudged => ({ allowed: judgement.verdict === 'allow', gatedOnly: judgement.kind === 'gated' });

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

    const { data: git, asks: gitAsks } = await gitChanges(this.deps, stage, leaves, placeOf(context));
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
      outcomes.push({ path: shownPath(change, this.deps.resolver.roots), fate: { kind: 'landed', how: data !== undefined ? 'git' : 'ignored', undoable: false }, ...(data !== undefined ? { git: data } : {}) });
    }
    for (const conflict of landedDirect.conflicts) {
      outcomes.push({ path: shownPath(conflict.change, this.deps.resolver.roots), fate: { kind: 'refused', why: conflictWhy(conflict) } });
    }

    const ignoredSet = new Set(ignored);
    const judged = rest.filter((change) => !ignoredSet.has(change));
    const reviews: Review[] = [];
    // What asks is decided on one card: "`npm run format` changed 12 files".
    const group = { id: newCallId(), command: context.command, changed: leaves.length };
    for (const change of judged) {
      const asked = gitAsks.get(change);
      const review = await reviewChange(this.deps, stage, change, context, group, asked);
      if ('refused' in review) {
        outcomes.push({ path: review.path, fate: { kind: 'refused', why: review.refused }, ...(asked !== undefined ? { gitAsked: asked.why } : {}) });
      } else if (approvedOnCard(review, context)) {
        const allowed: GateResult = { verdict: 'allow', callId: review.input.callId, decidedBy: 'person', scope: 'once', reason: "allowed once by the person on the command's card" };
        const fate = await landReviewed(this.deps, stage, review, allowed, context);
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
            const fate = await landReviewed(this.deps, stage, review, decision, context);
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
        outcomes.push({ path: `${shownPath(change, this.deps.resolver.roots)}/`, fate: { kind: 'refused', why: conflictWords.link } });
      } else if (!allowed) {
        outcomes.push({ path: `${shownPath(change, this.deps.resolver.roots)}/`, fate: { kind: 'refused', why: 'an empty folder, which would ask: make it yourself if you want it' } });
      }
    }
    return outcomes;
  }
}
