/**
 * The texts of one task's checkpoints, stored by content hash: each text once, either whole or as a line patch
 * against another text of the table (an edit's result against its base, a later base against the file's previous
 * result). A 10,000-line file with a hundred changed lines then costs one copy plus the changed lines, not two copies.
 *
 * Reading back is checked, never trusted: a missing text, a patch that does not fit its base, a chain that loops or
 * is too deep, or a text whose hash is not its key makes the whole task unreadable.
 */
import * as z from '../../zod';
import { sha256 } from '../approval/hash';
import { lineChanges, splitLines } from '../diff/lines';

export const TextHash = z.string().check(z.regex(/^[0-9a-f]{64}$/));

/** `[at, deleteCount, ...insertedLines]`: at 0-based line `at` of the base, delete lines and insert these (with endings). */
export const PatchOp = z.tuple([z.int().check(z.nonnegative()), z.int().check(z.nonnegative())], z.string());
export type PatchOp = z.infer<typeof PatchOp>;

export const StoredText = z.union([
  z.strictObject({ full: z.string() }),
  z.strictObject({ from: TextHash, ops: z.array(PatchOp) }),
]);
export type StoredText = z.infer<typeof StoredText>;

export const TextTable = z.record(TextHash, StoredText);
export type TextTable = z.infer<typeof TextTable>;

/** Longest chain of patches before a text is stored whole. */
const MAX_DEPTH = 16;
/** Edit budget of the diff behind a patch: a larger rewrite is stored whole rather than aligned at length. */
const PATCH_EDIT_LENGTH = 400;

export class CorruptCheckpoint extends Error {}

/** The line patch that turns `from` into `to`. */
export function makePatch(from: string, to: string): PatchOp[] {
  const toLines = splitLines(to);
  return lineChanges(from, to, { maxEditLength: PATCH_EDIT_LENGTH }).map(
    (change): PatchOp => [change.oldFrom, change.oldTo - change.oldFrom, ...toLines.slice(change.newFrom, change.newTo)],
  );
}

/** Applies a patch; throws CorruptCheckpoint if it does not fit the text. */
export function applyPatch(from: string, ops: readonly PatchOp[]): string {
  const lines = splitLines(from);
  const out: string[] = [];
  let at = 0;
  for (const [start, remove, ...insert] of ops) {
    if (start < at || start + remove > lines.length) {
      throw new CorruptCheckpoint('a stored patch does not fit its base text');
    }
    for (; at < start; at++) {
      out.push(lines[at] ?? '');
    }
    out.push(...insert);
    at += remove;
  }
  for (; at < lines.length; at++) {
    out.push(lines[at] ?? '');
  }
  return out.join('');
}

function patchSize(ops: readonly PatchOp[]): number {
  let size = 2;
  for (const op of ops) {
    size += 16;
    for (let i = 2; i < op.length; i++) {
      size += (op[i] as string).length + 3;
    }
  }
  return size;
}

/** Reads and adds texts of one table. The table object is changed in place by `add`. */
export class TextStore {
  private readonly resolved = new Map<string, string>();
  private readonly depths = new Map<string, number>();

  constructor(readonly table: TextTable) {}

  /** The text with this hash; throws CorruptCheckpoint when it is missing or does not check out. */
  get(hash: string): string {
    return this.resolve(hash, new Set());
  }

  private resolve(hash: string, visiting: Set<string>): string {
    const known = this.resolved.get(hash);
    if (known !== undefined) {
      return known;
    }
    const stored = this.table[hash];
    if (stored === undefined) {
      throw new CorruptCheckpoint(`a stored text is missing (${hash.slice(0, 12)})`);
    }
    if (visiting.has(hash) || visiting.size > MAX_DEPTH) {
      throw new CorruptCheckpoint('stored patches form a loop or too long a chain');
    }
    visiting.add(hash);
    const text = 'full' in stored ? stored.full : applyPatch(this.resolve(stored.from, visiting), stored.ops);
    if (sha256(text) !== hash) {
      throw new CorruptCheckpoint(`a stored text does not match its hash (${hash.slice(0, 12)})`);
    }
    this.resolved.set(hash, text);
    return text;
  }

  private depth(hash: string): number {
    const known = this.depths.get(hash);
    if (known !== undefined) {
      return known;
    }
    const stored = this.table[hash];
    const depth = stored === undefined ? Infinity : 'full' in stored ? 0 : this.depth(stored.from) + 1;
    this.depths.set(hash, depth);
    return depth;
  }

  /**
   * Adds a text (once per hash) and returns its hash. It is stored as a patch against the first of `near` that is in
   * the table when that is much smaller than the text, else whole.
   */
  add(text: string, near: readonly (string | null | undefined)[] = []): string {
    const hash = sha256(text);
    if (this.table[hash] !== undefined) {
      this.resolved.set(hash, text);
      return hash;
    }
    let stored: StoredText = { full: text };
    const base = near.find((candidate): candidate is string => typeof candidate === 'string' && this.table[candidate] !== undefined);
    if (base !== undefined && text.length > 256 && this.depth(base) < MAX_DEPTH) {
      const ops = makePatch(this.get(base), text);
      if (patchSize(ops) < text.length / 2) {
        stored = { from: base, ops };
      }
    }
    this.table[hash] = stored;
    this.resolved.set(hash, text);
    return hash;
  }

  /**
   * The texts `roots` need, standing alone: each root as stored, except that a patch whose base is not itself a root
   * is stored whole (so dropping the turns that held a chain's older texts frees them).
   */
  standalone(roots: Iterable<string>): TextTable {
    const keep = new Set(roots);
    const out: TextTable = {};
    for (const hash of keep) {
      const stored = this.table[hash];
      if (stored === undefined) {
        throw new CorruptCheckpoint(`a stored text is missing (${hash.slice(0, 12)})`);
      }
      out[hash] = 'from' in stored && !keep.has(stored.from) ? { full: this.get(hash) } : stored;
    }
    return out;
  }

  /** Keeps only what `roots` need, as `standalone` gives it. */
  retain(roots: Iterable<string>): void {
    const next = this.standalone(roots);
    for (const hash of Object.keys(this.table)) {
      if (!(hash in next)) {
        Reflect.deleteProperty(this.table, hash);
        this.resolved.delete(hash);
      }
    }
    Object.assign(this.table, next);
    this.depths.clear();
  }
}
