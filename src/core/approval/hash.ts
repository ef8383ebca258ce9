import { createHash } from 'node:crypto';

/** An array index as an object key: JSON.stringify writes such keys first, in numeric order, whatever their order. */
const isIndexKey = (key: string): boolean => /^(?:0|[1-9]\d*)$/.test(key) && Number(key) < 2 ** 32 - 1;

/**
 * Sorted keys in the order JSON.stringify writes an object built with them: index keys numerically, then the rest (the
 * order canonicalJson writes, and the cards show).
 */
export function writtenOrder(keys: readonly string[]): string[] {
  const sorted = [...keys].sort();
  const indices = sorted.filter(isIndexKey).sort((a, b) => Number(a) - Number(b));
  return indices.length === 0 ? sorted : [...indices, ...sorted.filter((key) => !isIndexKey(key))];
}

interface Frame {
  value: object;
  /** An object's keys in the order written; undefined for an array. */
  keys: string[] | undefined;
  next: number;
  /** Whether something was written in it yet (a comma goes before the next). */
  wrote: boolean;
}

/**
 * JSON with object keys sorted at every level, so equal values always serialise (and hash) the same way.
 * Rejects what JSON cannot represent faithfully rather than guessing.
 *
 * Written out with its own stack rather than by recursion: a 10,000-deep value (one line of JSON from a caller, or an
 * MCP server's tool schema) overflowed the call stack with a RangeError. Every key is kept, `__proto__`, `constructor`
 * and `prototype` as any other (an object built by `out[key] = …` dropped `__proto__`, so `{ id: 1, __proto__: {…} }`
 * and `{ id: 1 }` had one hash). The text is what `JSON.stringify` gave for the same keys, so kept grants still match.
 */
export function canonicalJson(value: unknown): string {
  const parts: string[] = [];
  const stack: Frame[] = [];
  const open = new Set<object>();
  /** Writes a primitive, or opens a container (pushed); undefined is the caller's to handle. */
  const write = (item: unknown): void => {
    if (item === null || typeof item === 'string' || typeof item === 'boolean') {
      parts.push(JSON.stringify(item));
      return;
    }
    if (typeof item === 'number') {
      if (!Number.isFinite(item)) {
        throw new TypeError(`cannot hash the non-finite number ${String(item)}`);
      }
      parts.push(JSON.stringify(item));
      return;
    }
    if (typeof item !== 'object') {
      throw new TypeError(`cannot hash a value of type ${typeof item}`);
    }
    if (open.has(item)) {
      throw new TypeError('cannot hash a cyclic value');
    }
    open.add(item);
    const isArray = Array.isArray(item);
    parts.push(isArray ? '[' : '{');
    stack.push({ value: item, keys: isArray ? undefined : writtenOrder(Object.keys(item)), next: 0, wrote: false });
  };
  write(value);
  while (stack.length > 0) {
    const frame = stack[stack.length - 1];
    if (frame === undefined) {
      break;
    }
    const { value: container, keys } = frame;
    if (keys === undefined) {
      const items = container as unknown[];
      if (frame.next >= items.length) {
        parts.push(']');
        stack.pop();
        open.delete(container);
        continue;
      }
      const index = frame.next++;
      parts.push(frame.wrote ? ',' : '');
      frame.wrote = true;
      if (!(index in items)) {
        parts.push('null'); // a hole, as JSON.stringify writes it
        continue;
      }
      write(items[index]);
      continue;
    }
    if (frame.next >= keys.length) {
      parts.push('}');
      stack.pop();
      open.delete(container);
      continue;
    }
    const key = keys[frame.next++] ?? '';
    const item = (container as Record<string, unknown>)[key];
    if (item === undefined) {
      continue;
    }
    parts.push(`${frame.wrote ? ',' : ''}${JSON.stringify(key)}:`);
    frame.wrote = true;
    write(item);
  }
  return parts.join('');
}

export function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * The hash a decision is bound to: the tool, its canonical arguments and, for edits, the hash of the content the
 * diff was computed from. A decision for any other hash is not a decision for this call.
 */
export function callHash(tool: string, args: unknown, baseContentHash?: string): string {
  return sha256(canonicalJson({ tool, args, base: baseContentHash ?? null }));
}
