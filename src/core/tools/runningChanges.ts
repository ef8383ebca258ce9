/**
 * "Changes so far" of a staged command that is still running (a watcher, a dev server until its timeout): which
 * running command (when several), what it has changed in its stage until now, and a picked file's staged text to
 * diff against the workspace. Nothing is judged or landed here; that happens when the command ends. The editor's part
 * (the quick picks, the read-only documents, the diff) is src/vscode/terminal/runningCommandChanges.ts.
 */
import { promises as fs } from 'node:fs';
import { decodeFile } from '../files/encoding';
import type { RunningStage } from '../terminal/confinedRun';
import { changesSoFar, type ChangeSoFar } from './changesSoFar';

const kindWords: Record<ChangeSoFar['kind'], string> = {
  created: 'created',
  modified: 'modified',
  deleted: 'deleted',
  mode: 'mode changed',
  symlink: 'made a symbolic link',
};

/** What the editor shows and asks. */
export interface RunningChangesPrompts {
  info(text: string): void;
  warn(text: string): void;
  /** Which of several running commands. */
  pickCommand(running: readonly RunningStage[], title: string): PromiseLike<RunningStage | undefined>;
  /** Which changed file (each item: its path, what happened to it). */
  pickChange(items: readonly { label: string; description: string; change: ChangeSoFar }[], title: string, placeHolder: string): PromiseLike<ChangeSoFar | undefined>;
  /** The diff of the file in the workspace (`created`: an empty one) against its staged text. */
  openDiff(change: ChangeSoFar, staged: string, title: string): PromiseLike<void>;
}

/** A staged file's text, decoded as the workspace would read it; undefined when it is not text. */
async function stagedText(file: string): Promise<string | undefined> {
  const decoded = await decodeFile(await fs.readFile(file));
  return decoded.format.kind === 'text' ? decoded.text : undefined;
}

/** Asks which running command (when several), then lists its changes so far; a picked file opens as a diff. */
export async function showRunningChanges(running: readonly RunningStage[], roots: () => readonly string[], prompts: RunningChangesPrompts): Promise<void> {
  if (running.length === 0) {
    prompts.info('Toolgate: no staged command is running now. A command that ended has landed its changes, or asks about them in the Approvals panel.');
    return;
  }
  const which = running.length === 1 ? running[0] : await prompts.pickCommand(running, 'Toolgate: which running command?');
  if (which === undefined) {
    return;
  }
  let changes: ChangeSoFar[];
  try {
    changes = await changesSoFar(which.stage, roots());
  } catch (error) {
    prompts.warn(`Toolgate: the changes of \`${which.command}\` could not be read (${error instanceof Error ? error.message : String(error)}); it may just have ended.`);
    return;
  }
  if (changes.length === 0) {
    prompts.info(`Toolgate: \`${which.command}\` has changed nothing in the workspace so far.`);
    return;
  }
  const picked = await prompts.pickChange(
    changes.map((change) => ({ label: change.path, description: kindWords[change.kind], change })),
    `Toolgate: \`${which.command}\` has changed ${changes.length} file${changes.length === 1 ? '' : 's'} so far (staged, not in your workspace until it ends and they are judged)`,
    'Pick a file to see its diff against the workspace',
  );
  if (picked === undefined) {
    return;
  }
  const staged = picked.staged === undefined ? '' : await stagedText(picked.staged);
  if (staged === undefined) {
    prompts.info(`Toolgate: ${picked.path} is not text; \`${which.command}\` ${kindWords[picked.kind]} it so far.`);
    return;
  }
  if (picked.kind === 'mode' || picked.kind === 'symlink') {
    prompts.info(`Toolgate: \`${which.command}\` has ${kindWords[picked.kind]} for ${picked.path} so far.`);
    return;
  }
  await prompts.openDiff(picked, staged, `${picked.path} (staged so far by \`${which.command}\`)`);
}
