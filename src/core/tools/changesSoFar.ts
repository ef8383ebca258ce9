import path from 'node:path';
import { readChangeSet, type StagedChange } from '../sandbox/changeSet';
import type { Stage } from '../sandbox/stage';
import { shownPath } from './landingSummary';

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
      path: shownPath(change, roots),
      absolute: path.join(change.folder, change.path),
      kind: change.kind,
      ...(change.kind === 'created' || change.kind === 'modified' ? { staged: change.staged } : {}),
    }))
    .sort((a, b) => a.path.localeCompare(b.path));
}
