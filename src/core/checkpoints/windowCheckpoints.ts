/**
 * The checkpoints of a window: the store (in the mirrored workspace state, bounded by
 * `toolgate.checkpoints.maxMegabytes`, which it follows as it changes) and the recorder the tool service and the agent
 * call.
 */
import type { DisposableStore } from '../disposable';
import { readUtf8File } from '../files/diskText';
import type { LogPort } from '../logPort';
import type { SettingsPort } from '../settings';
import type { MirroredWorkspaceState } from '../storage/mirroredState';
import { GitCli } from './gitCli';
import { ChangeRecorder } from './recorder';
import type { DropNote } from './schema';
import { CheckpointStateStorage } from './stateStorage';
import { CheckpointStore } from './store';

const bytesOf = (megabytes: number): number => Math.floor(megabytes * 1024 * 1024);

export interface CheckpointDeps {
  /** The mirrored workspace state (the window gate's `state`). */
  state: MirroredWorkspaceState;
  settings: SettingsPort;
  log: LogPort;
  /** The host's store: the settings listener is added to it. */
  disposables: Pick<DisposableStore, 'add'>;
  /** Something was dropped to stay within the budget, or a change could not be kept (logged already): e.g. a chat notice. */
  onNote?: (note: DropNote) => void;
}

export function createCheckpoints(deps: CheckpointDeps): { store: CheckpointStore; recorder: ChangeRecorder } {
  const warn = (message: string): void => deps.log.warn(message);
  const onNote = (note: DropNote): void => {
    deps.log.warn(`checkpoints: ${note.message}`);
    deps.onNote?.(note);
  };
  const store = new CheckpointStore(new CheckpointStateStorage(deps.state), {
    budgetBytes: bytesOf(deps.settings.get('checkpoints.maxMegabytes')),
    warn,
  });
  deps.disposables.add(
    deps.settings.onDidChange((affects) => {
      if (affects('checkpoints.maxMegabytes')) {
        void store.setBudget(bytesOf(deps.settings.get('checkpoints.maxMegabytes'))).then((notes) => notes.forEach(onNote), (error: unknown) => warn(`checkpoints: ${String(error)}`));
      }
    }),
  );
  return { store, recorder: new ChangeRecorder({ store, git: new GitCli(), readText: (absolute) => readUtf8File(absolute), onNote, warn }) };
}
