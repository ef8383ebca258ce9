import { createHash } from 'node:crypto';

/**
 * JSON with object keys sorted at every level, so equal values always serialise (and hash) the same way.
 * Rejects what JSON cannot represent faithfully rather than guessing.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(canonicalize(value, new Set()));
}

function canonicalize(value: unknown, seen: Set<object>): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') {
    return value;
  }
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) {
      throw new TypeError(`cannot hash the non-finite number ${String(value)}`);
    }
    return value;
  }
  if (typeof value !== 'object') {
    throw new TypeError(`cannot hash a value of type ${typeof value}`);
  }
  if (seen.has(value)) {
    throw new TypeError('cannot hash a cyclic value');
  }
  seen.add(value);
  try {
    if (Array.isArray(value)) {
      return value.map((item: unknown) => canonicalize(item, seen));
    }
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const item = (value as Record<string, unknown>)[key];
      if (item !== undefined) {
        out[key] = canonicalize(item, seen);
      }
    }
    return out;
  } finally {
    seen.delete(value);
  }
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
