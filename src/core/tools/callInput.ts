/**
 * What a call from outside is: the one rule every public entry checks before anything else (the API's
 * `requestApproval`, `evaluate` and `invokeTool`, the language-model tools, the MCP endpoint). Whatever another
 * extension or client hands over (`null`, a string, a function, a 10,000-deep value, a cycle, a Date) is answered with
 * an error naming what is wrong, and only a call that passes reaches the gate, a card or a tool. The bounds live here.
 *
 * A call is `{ tool, args?, source? }`: a tool name (printable, at most 128 characters), its arguments as a JSON value
 * (absent means `{}`, as MCP has it) and, through the API, who asks. What passes is a copy, taken when it was checked,
 * so the caller changing its object afterwards changes neither the card nor what runs.
 */
import * as z from '../../zod';
import type { ToolCallRequest } from './service';

/** How deep arguments may nest: far past any tool's schema, and far from the stack depth of the code that reads them. */
export const maxArgsDepth = 64;
/**
 * How much arguments may hold, as JSON text: a write_file of a large generated file or a lockfile fits (a few MiB is
 * already far past what a person reviews on a card), while the MCP endpoint's request body (16 MiB) carries it whole
 * even when escaping doubles it.
 */
export const maxArgsChars = 8 * 2 ** 20;
/** The longest tool name: an MCP tool's model name is at most 64; another extension's own tool gets twice that. */
export const maxToolNameChars = 128;
/** The longest `source` the API takes (it is shown cut to 64 characters, src/core/callers.ts). */
export const maxSourceChars = 256;

declare const checked: unique symbol;
/** A call that passed `readCall`: the tool service's outside entries take only this. */
export type CheckedCall = ToolCallRequest & { readonly [checked]: true };

export type ReadCall = { ok: true; call: CheckedCall } | { ok: false; error: string };
export type JsonCheck = { ok: true; value: unknown } | { ok: false; error: string };

/** What a value is, as an error names it: "null", "a string", "a Date". */
export function describeValue(value: unknown): string {
  if (value === null) {
    return 'null';
  }
  if (Array.isArray(value)) {
    return 'an array';
  }
  switch (typeof value) {
    case 'undefined':
      return 'undefined';
    case 'number':
      return Number.isFinite(value) ? 'a number' : String(value);
    case 'bigint':
      return 'a bigint';
    case 'object': {
      const name = constructorName(value);
      return name === undefined || name === 'Object' ? 'an object' : `a ${name}`;
    }
    default:
      return `a ${typeof value}`;
  }
}

function constructorName(value: object): string | undefined {
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype === null) {
    return undefined;
  }
  const ctor: unknown = (prototype as { constructor?: unknown }).constructor;
  return typeof ctor === 'function' && ctor.name !== '' ? ctor.name : 'object without a name';
}

/** Characters a tool name may not hold: controls, invisible formatting (bidi overrides), lone surrogates, line breaks. */
const unprintable = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/u;

/** Why a tool name is refused, if it is. */
export function toolNameProblem(name: string): string | undefined {
  if (name === '') {
    return 'must not be empty';
  }
  if (name.length > maxToolNameChars) {
    return `is ${name.length} characters long, over ${maxToolNameChars}`;
  }
  const bad = unprintable.exec(name);
  if (bad !== null) {
    const code = bad[0].codePointAt(0) ?? 0;
    return `contains the unprintable character U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  }
  if (name.trim() !== name) {
    return 'starts or ends with white space';
  }
  return undefined;
}

const ToolName = z.string({ error: (issue) => `must be a string (the tool's name), got ${describeValue(issue.input)}` }).check(z.superRefine((name, context) => {
  const problem = toolNameProblem(name);
  if (problem !== undefined) {
    context.addIssue({ code: 'custom', message: problem });
  }
}));

/** The call's shape; its arguments are checked next, by `checkJsonValue` (zod's own walk has no depth bound). */
const CallShape = z.strictObject(
  {
    tool: ToolName,
    args: z.optional(z.unknown()),
    source: z.optional(z
      .string({ error: (issue) => `must be a string (who asks), got ${describeValue(issue.input)}` }).check(z.maxLength(maxSourceChars, `is longer than ${maxSourceChars} characters`))),
  },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `unrecognized key${issue.keys.length === 1 ? '' : 's'} ${issue.keys.map((key) => JSON.stringify(key)).join(', ')} (a call is { tool, args, source? })`
        : undefined,
  },
);

/**
 * A call from outside, checked: the shape, the tool's name, the arguments as a JSON value within the bounds. The error
 * says what is wrong and where ("invalid call: args.a.b…: nested deeper than 64 levels"); nothing here throws.
 */
export function readCall(input: unknown): ReadCall {
  try {
    if (typeof input !== 'object' || input === null || Array.isArray(input)) {
      return { ok: false, error: `invalid call: expected an object { tool, args, source? }, got ${describeValue(input)}` };
    }
    const shape = CallShape.safeParse(input);
    if (!shape.success) {
      const problems = shape.error.issues.map((issue) => (issue.path.length > 0 ? `${issue.path.map(String).join('.')}: ${issue.message}` : issue.message));
      return { ok: false, error: `invalid call: ${problems.join('; ')}` };
    }
    const { tool, source } = shape.data;
    const args = shape.data.args === undefined ? { ok: true as const, value: {} } : checkJsonValue(shape.data.args);
    if (!args.ok) {
      return { ok: false, error: `invalid call: ${args.error}` };
    }
    return { ok: true, call: { tool, args: args.value, ...(source !== undefined ? { source } : {}) } as CheckedCall };
  } catch (error) {
    // A proxy or a getter of the caller's that throws while it is read.
    return { ok: false, error: `invalid call: it could not be read (${error instanceof Error ? error.message : String(error)})` };
  }
}

/** A call of a tool Toolgate names itself (a language-model tool, the MCP endpoint's), checked as any other. */
export function readToolCall(tool: string, args: unknown): ReadCall {
  return readCall({ tool, args });
}

/** What a caller is told when its call is refused before the gate (the agent's refused calls read the same). */
export function notRunOutput(error: string): string {
  return `Error: ${error}. Nothing was run.`;
}

type Segment = string | number;

/** Where in the arguments: `args.a.b[3]["odd key"]`, cut after a few steps (the depth error's path is 65 steps). */
function where(root: string, path: readonly Segment[]): string {
  const shown = path.slice(0, 8).map((segment) => {
    if (typeof segment === 'number') {
      return `[${segment}]`;
    }
    const key = segment.length > 40 ? `${segment.slice(0, 40)}…` : segment;
    return /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
  });
  return `${root}${shown.join('')}${path.length > 8 ? '…' : ''}`;
}

/**
 * Sets `key` as an own data property. `out[key] = …` would call Object.prototype's `__proto__` setter (the prototype
 * changes and the key is lost); every other key, `constructor` and `prototype` included, is an own property either way.
 */
function setOwn(out: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    out[key] = value;
  }
}

interface Frame {
  source: object;
  /** The copy being filled: an array, or an object whose keys are all own data properties. */
  out: unknown[] | Record<string, unknown>;
  /** An object's keys; undefined for an array. */
  keys: string[] | undefined;
  length: number;
  next: number;
  /** How many of an object's keys were copied (each after the first is one comma of JSON text). */
  written: number;
  path: Segment[];
}

/**
 * Checks that `value` is a JSON value within the bounds and returns a copy of it: null, booleans, finite numbers,
 * strings, arrays without holes and plain objects (an `undefined` property is left out, as JSON does), at most
 * `maxArgsDepth` deep and `maxArgsChars` of JSON text. Keys JavaScript treats specially (`__proto__`, `constructor`,
 * `prototype`) are kept as data.
 *
 * Iterative, with its own stack of at most `maxArgsDepth` frames: a recursive walk of a 10,000-deep value (one line of
 * JSON from a caller) overflows the call stack with a RangeError before it could say what is wrong.
 */
export function checkJsonValue(value: unknown, root = 'args'): JsonCheck {
  const budget = { chars: 0 };
  const copied = copiedAsJson(value, 0, budget);
  return copied !== unsure && budget.chars <= maxArgsChars ? { ok: true, value: copied } : walkedJsonValue(value, root);
}

/** Said by `copiedAsJson` of anything it does not copy: the walk then decides, and names what is wrong. */
const unsure = Symbol('unsure');

/**
 * checkJsonValue's copy of a value that passes, by recursion (at most `maxArgsDepth` deep, so the stack is never at
 * risk): what nearly every call's arguments are, copied in a fraction of the walk's time. Anything it would refuse
 * (or a cycle, which is deeper than any depth) is `unsure`, and the walk, which says where and why, decides it. It
 * counts the JSON text as the walk does, in `budget`, and stops once the count is over the bound.
 */
function copiedAsJson(item: unknown, depth: number, budget: { chars: number }): unknown {
  switch (typeof item) {
    case 'string':
      // As in the walk: a huge string is refused before it is escaped.
      if (budget.chars + item.length + 2 > maxArgsChars) {
        return unsure;
      }
      budget.chars += JSON.stringify(item).length;
      return item;
    case 'boolean':
      budget.chars += item ? 4 : 5;
      return item;
    case 'number':
      budget.chars += String(item).length;
      return Number.isFinite(item) ? item : unsure;
    case 'object':
      break;
    default:
      return unsure;
  }
  if (item === null) {
    budget.chars += 4;
    return null;
  }
  if (depth >= maxArgsDepth || budget.chars > maxArgsChars) {
    return unsure;
  }
  const prototype: unknown = Object.getPrototypeOf(item);
  if (Array.isArray(item) && prototype === Array.prototype) {
    budget.chars += 2 + Math.max(0, item.length - 1);
    const out: unknown[] = [];
    for (let index = 0; index < item.length; index++) {
      const descriptor = Object.getOwnPropertyDescriptor(item, index);
      if (descriptor === undefined || !('value' in descriptor) || descriptor.value === undefined) {
        return unsure;
      }
      const copy = copiedAsJson(descriptor.value, depth + 1, budget);
      if (copy === unsure) {
        return unsure;
      }
      out.push(copy);
    }
    return out;
  }
  if ((prototype !== Object.prototype && prototype !== null) || Object.getOwnPropertySymbols(item).length > 0) {
    return unsure;
  }
  budget.chars += 2;
  const out: Record<string, unknown> = {};
  let written = 0;
  for (const key of Object.keys(item)) {
    const descriptor = Object.getOwnPropertyDescriptor(item, key);
    if (descriptor === undefined || !('value' in descriptor)) {
      return unsure;
    }
    if (descriptor.value === undefined) {
      continue; // left out, as JSON does
    }
    budget.chars += JSON.stringify(key).length + 1 + (written > 0 ? 1 : 0);
    const copy = copiedAsJson(descriptor.value, depth + 1, budget);
    if (copy === unsure) {
      return unsure;
    }
    setOwn(out, key, copy);
    written++;
  }
  return out;
}

/** checkJsonValue by a walk with its own stack, which says where a value fails and why (see checkJsonValue). */
function walkedJsonValue(value: unknown, root: string): JsonCheck {
  let chars = 0;
  const stack: Frame[] = [];
  /** The containers on the path from the root: meeting one again is a cycle. */
  const open = new Set<object>();
  const fail = (path: readonly Segment[], problem: string): JsonCheck => ({ ok: false, error: `${where(root, path)}: ${problem}` });
  const tooLarge = `larger than ${maxArgsChars / 2 ** 20} MiB of JSON text`;

  /**
   * A leaf's copy (itself), or a new frame (its path set by the caller) for a container `depth` steps below the root;
   * a string is the problem.
   */
  const enter = (item: unknown, depth: number): { leaf: unknown } | { frame: Frame } | string => {
    switch (typeof item) {
      case 'string':
        // Its JSON text is at least its length and two quotes: a huge string is refused before it is escaped.
        if (chars + item.length + 2 > maxArgsChars) {
          return tooLarge;
        }
        chars += JSON.stringify(item).length;
        return { leaf: item };
      case 'boolean':
        chars += item ? 4 : 5;
        return { leaf: item };
      case 'number':
        if (!Number.isFinite(item)) {
          return `${String(item)} is not a JSON number`;
        }
        chars += String(item).length; // as JSON writes a finite number
        return { leaf: item };
      case 'object': {
        if (item === null) {
          chars += 4;
          return { leaf: null };
        }
        if (open.has(item)) {
          return 'refers to itself (a cycle), which JSON cannot hold';
        }
        if (depth >= maxArgsDepth) {
          return `nested deeper than ${maxArgsDepth} levels`;
        }
        const prototype: unknown = Object.getPrototypeOf(item);
        if (Array.isArray(item) && prototype === Array.prototype) {
          chars += 2 + Math.max(0, item.length - 1);
          return { frame: { source: item, out: [], keys: undefined, length: item.length, next: 0, written: 0, path: [] } };
        }
        if (prototype !== Object.prototype && prototype !== null) {
          return `${describeValue(item)}, not a JSON value (only null, booleans, finite numbers, strings, arrays and plain objects)`;
        }
        if (Object.getOwnPropertySymbols(item).length > 0) {
          return 'has a symbol key, which JSON cannot hold';
        }
        const keys = Object.keys(item);
        chars += 2;
        return { frame: { source: item, out: {}, keys, length: keys.length, next: 0, written: 0, path: [] } };
      }
      default:
        return `${describeValue(item)}, not a JSON value`;
    }
  };

  const first = enter(value, 0);
  if (typeof first === 'string') {
    return fail([], first);
  }
  if (chars > maxArgsChars) {
    return fail([], tooLarge);
  }
  if ('leaf' in first) {
    return { ok: true, value: first.leaf };
  }
  const result = first.frame.out;
  stack.push(first.frame);
  open.add(first.frame.source);
  while (stack.length > 0) {
    const frame = stack[stack.length - 1];
    if (frame === undefined) {
      break;
    }
    if (frame.next >= frame.length) {
      stack.pop();
      open.delete(frame.source);
      continue;
    }
    const index = frame.next++;
    let item: unknown;
    let segment: Segment;
    if (frame.keys === undefined) {
      segment = index;
      if (!Object.prototype.hasOwnProperty.call(frame.source, index)) {
        return fail([...frame.path, segment], 'an empty slot of an array, not a JSON value');
      }
      const descriptor = Object.getOwnPropertyDescriptor(frame.source, index);
      if (descriptor === undefined || !('value' in descriptor)) {
        return fail([...frame.path, segment], 'a getter, not a JSON value');
      }
      item = descriptor.value;
      if (item === undefined) {
        return fail([...frame.path, segment], 'undefined, not a JSON value');
      }
    } else {
      const key = frame.keys[index] ?? '';
      segment = key;
      const descriptor = Object.getOwnPropertyDescriptor(frame.source, key);
      if (descriptor === undefined || !('value' in descriptor)) {
        return fail([...frame.path, segment], 'a getter, not a JSON value');
      }
      item = descriptor.value;
      if (item === undefined) {
        continue; // left out, as JSON does
      }
      // The key, its colon, and the comma before it unless it is the first.
      chars += JSON.stringify(key).length + 1 + (frame.written > 0 ? 1 : 0);
    }
    const entered = enter(item, frame.path.length + 1);
    if (typeof entered === 'string') {
      return fail([...frame.path, segment], entered);
    }
    if (chars > maxArgsChars) {
      return fail([...frame.path, segment], tooLarge);
    }
    const copy = 'leaf' in entered ? entered.leaf : entered.frame.out;
    if (Array.isArray(frame.out)) {
      frame.out.push(copy);
    } else {
      setOwn(frame.out, segment as string, copy);
      frame.written++;
    }
    if ('frame' in entered) {
      entered.frame.path = [...frame.path, segment];
      stack.push(entered.frame);
      open.add(entered.frame.source);
    }
  }
  return { ok: true, value: result };
}
