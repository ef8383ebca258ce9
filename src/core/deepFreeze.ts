/**
 * Freezes a value and everything in it, for a value many readers share (a parsed setting, a tool's spec): a reader
 * that tried to change it would change every other reader's. Frozen before its parts, so a cycle ends the walk.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) {
      deepFreeze(item);
    }
  }
  return value;
}
