/**
 * A staged command's changes inside `.git` folders: sorted by ../sandbox/gitData's rule into git's data that lands
 * unasked and what asks, with the I/O the rule needs (git's files before and after the command), and the card's view
 * of a ref move that changes a protected path.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { CallPlace, Gate } from '../approval/gate';
import type { PathResolver } from '../approval/paths';
import type { GateCall } from '../approval/policy';
import { diffText } from '../diff/lineDiff';
import { diffPreview } from '../review/diffPreview';
import type { DiffRow, Preview } from '../review/preview';
import type { StagedChange } from '../sandbox/changeSet';
import { classifyGitPath, diskView, gitAskWords, gitPathOf, GitTrees, judgeRefChange, type GitView, type RefVerdict } from '../sandbox/gitData';
import type { Stage } from '../sandbox/stage';
import { shownPath, type Outcome } from './landingSummary';

/** What judging `.git`'s changes needs: the gate's verdict on a write (is a path protected?), and the folders. */
export interface GitChangesDeps {
  gate: Pick<Gate, 'evaluate'>;
  resolver: Pick<PathResolver, 'roots'>;
}

/** A change in `.git` that asks: why, and for a ref move that changes a protected path, what the card shows. */
export interface GitAsk {
  why: string;
  preview?: Preview;
}

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

/**
 * The changes inside `.git` folders, by ../sandbox/gitData's rule: git's data that lands unasked (ref moves after
 * their trees are compared, once per repository) and what asks, with why.
 */
export async function gitChanges(deps: GitChangesDeps, stage: Stage, leaves: readonly StagedChange[], place: CallPlace): Promise<{ data: Map<StagedChange, NonNullable<Outcome['git']>>; asks: Map<StagedChange, GitAsk> }> {
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
    // the path the tree names (no file on disk to resolve: it is in a commit), as StagedLanding's ignoredOf does.
    const isProtected = (repoPath: string): boolean => {
      const relative = repo === '' ? repoPath : `${repo}/${repoPath}`;
      const absolute = path.join(folder, relative);
      const call: GateCall = { tool: 'write_file', args: { path: absolute }, argsHash: '', target: { input: absolute, absolute, real: absolute, root: folder, relative } };
      const kind = deps.gate.evaluate(call, place).kind;
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
          asks.set(change, { why: verdict.sentence, ...(verdict.kind === 'protected' ? { preview: refMovePreview(shownPath(change, deps.resolver.roots), repo, verdict) } : {}) });
        }
      }
    } finally {
      await trees.dispose();
    }
  }
  return { data, asks };
}
