import { hash } from 'node:crypto';

/** An array index as an object key: JSON.stringify writes such keys first, in numeric order, whatever their order. */
const isIndexKey = (key: string): boolean => /^(?:0|[1-9]\d*)$/.test(key) && Number(key) < 2 ** 32 - 1;

/** Whether a key starts with a digit (only such a key can be an index key): most objects have none, and skip the rest. */
const startsWithDigit = (key: string): boolean => {
  const code = key.charCodeAt(0);
  return code >= 48 && code <= 57;
};

/**
 * Sorted keys in the order JSON.stringify writes an object built with them: index keys numerically, then the rest (the
 * order canonicalJson writes, and the cards show).
 */
export function writtenOrder(keys: readonly string[]): string[] {
  const sorted = keys.length < 2 ? [...keys] : [...keys].sort();
  if (!sorted.some(startsWithDigit)) {
    return sorted;
  }
  const indices = sorted.filter(isIndexKey).sort((a, b) => Number(a) - Number(b));
  return indices.length === 0 ? sorted : [...indices, ...sorted.filter((key) => !isIndexKey(key))];
}

/** How deep canonicalJson writes by recursion; a deeper value (or a cycle, which is endless) is written by its walk. */
const recursedDepth = 64;

/** Said by `recursedJson` of a value deeper than `recursedDepth`: the walk writes the whole value instead. */
const tooDeep = Symbol('too deep');

/** A primitive's text, as canonicalJson writes it; undefined for a container (or null's caller). */
function primitiveJson(item: unknown): string | undefined {
  switch (typeof item) {
    case 'string':
    case 'boolean':
      return JSON.stringify(item);
    case 'number':
      if (!Number.isFinite(item)) {
        throw new TypeError(`cannot hash the non-finite number ${String(item)}`);
      }
      return JSON.stringify(item);
    case 'object':
      return item === null ? 'null' : undefined;
    default:
      throw new TypeError(`cannot hash a value of type ${typeof item}`);
  }
}

/**
 * canonicalJson's text of a value at most `recursedDepth` deep, by recursion: what nearly every call's arguments are,
 * written in a fraction of the walk's time (a granted MCP call's hash was a fifth of the gate's cost). Deeper, it says
 * `tooDeep` rather than risk the stack; a cycle is deeper than any depth, so it is the walk that names it.
 */
function recursedJson(item: unknown, depth: number): string | typeof tooDeep {
  const primitive = primitiveJson(item);
  if (primitive !== undefined) {
    return primitive;
  }
  if (depth >= recursedDepth) {
    return tooDeep;
  }
  if (Array.isArray(item)) {
    let text = '[';
    for (let index = 0; index < item.length; index++) {
      const part = index in item ? recursedJson(item[index], depth + 1) : 'null'; // a hole, as JSON.stringify writes it
      if (part === tooDeep) {
        return tooDeep;
      }
      text += index === 0 ? part : `,${part}`;
    }
    return `${text}]`;
  }
  const object = item as Record<string, unknown>;
  let text = '{';
  let wrote = false;
  for (const key of writtenOrder(Object.keys(object))) {
    const value = object[key];
    if (value === undefined) {
      continue;
    }
    const part = recursedJson(value, depth + 1);
    if (part === tooDeep) {
      return tooDeep;
    }
    text += `${wrote ? ',' : ''}${JSON.stringify(key)}:${part}`;
    wrote = true;
  }
  return `${text}}`;
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
  const recursed = recursedJson(value, 0);
  return recursed === tooDeep ? walkedJson(value) : recursed;
}

/** canonicalJson's text of any value, by a walk with its own stack (see canonicalJson). */
function walkedJson(value: unknown): string {
  const parts: string[] = [];
  const stack: Frame[] = [];
  const open = new Set<object>();
  /** Writes a primitive, or opens a container (pushed); undefined is the caller's to handle. */
  const write = (item: unknown): void => {
    const primitive = primitiveJson(item);
    if (primitive !== undefined) {
      parts.push(primitive);
      return;
    }
    if (typeof item !== 'object' || item === null) {
      return; // primitiveJson wrote it or threw; this only narrows the type
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

/** The one-shot hash: no Hash object made and fed per call. */
export function sha256(text: string): string {
  return hash('sha256', text, 'hex');
}

/**
 * The hash a decision is bound to: the tool, its canonical arguments and, for edits, the hash of the content the
 * diff was computed from. A decision for any other hash is not a decision for this call.
 */
export function callHash(tool: string, args: unknown, baseContentHash?: string): string {
  // canonicalJson({ tool, args, base }) written out: its keys are already in order (an undefined `args` left out).
  const rest = `"base":${JSON.stringify(baseContentHash ?? null)},"tool":${JSON.stringify(tool)}}`;
  return sha256(args === undefined ? `{${rest}` : `{"args":${canonicalJson(args)},${rest}`);
}
