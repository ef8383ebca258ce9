/**
 * Where the checkpoints live: the mirrored workspace state (core/storage/mirroredState.ts), each value wrapped with a revision.
 * The mirror keeps whichever copy (workspace state or its file) has the higher `revision`; a task's value is a JSON
 * string, which has none, so without the wrapper a workspace-state write lost to a window reload would bring back an
 * older task next to a newer index. The revision is a time stamp, strictly increasing within a window.
 */
import * as z from '../../zod';
import type { KeyValueStore } from '../storage/keyValueStore';
import { indexKey } from './schema';
import type { CheckpointStorage } from './store';

const Stamped = z.object({ revision: z.number(), value: z.unknown() });

export class CheckpointStateStorage implements CheckpointStorage {
  private last = 0;

  constructor(
    private readonly state: KeyValueStore & { keys(): readonly string[] },
    private readonly now: () => number = Date.now,
  ) {}

  get(key: string): unknown {
    const parsed = Stamped.safeParse(this.state.get(key));
    // Anything else (removed, or not written by this class) reads as absent: the store then starts afresh.
    return parsed.success ? parsed.data.value : undefined;
  }

  async update(key: string, value: unknown): Promise<void> {
    if (value === undefined) {
      await this.state.update(key, undefined);
      return;
    }
    this.last = Math.max(this.now(), this.last + 1);
    await this.state.update(key, { revision: this.last, value });
  }

  /** The checkpoint keys (the store removes task values its index does not list). */
  keys(): readonly string[] {
    return this.state.keys().filter((key) => key === indexKey || key.startsWith(`${indexKey}.`));
  }
}
