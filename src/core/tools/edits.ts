/**
 * Applying edit_file's exact replacements to a text, and keeping a file's line endings. Pure, so the panel's diff
 * and what is written come from the same computation.
 */
import { detectEol, withEol } from '../diff/lines';

function countOccurrences(haystack: string, needle: string): number {
  let count = 0;
  for (let index = haystack.indexOf(needle); index !== -1; index = haystack.indexOf(needle, index + needle.length)) {
    count++;
  }
  return count;
}

export type EditResult = { ok: true; text: string } | { ok: false; error: string };

/**
 * Applies the replacements in order. Each `old` must occur exactly once in the text as it is at that point; the
 * model's line endings are matched to the file's. Fails without a partial result.
 */
export function applyEdits(text: string, edits: readonly { old: string; new: string }[], displayPath: string): EditResult {
  const eol = detectEol(text);
  let current = text;
  for (const [index, edit] of edits.entries()) {
    const old = withEol(edit.old, eol);
    const count = countOccurrences(current, old);
    const label = edits.length > 1 ? `edit ${index + 1} of ${edits.length}` : 'the edit';
    if (count === 0) {
      return {
        ok: false,
        error: `${label}: \`old\` was not found in ${displayPath}; read the file again and copy the text exactly`,
      };
    }
    if (count > 1) {
      return {
        ok: false,
        error: `${label}: \`old\` occurs ${count} times in ${displayPath}; include more surrounding lines so it is unique`,
      };
    }
    const at = current.indexOf(old);
    current = current.slice(0, at) + withEol(edit.new, eol) + current.slice(at + old.length);
  }
  return { ok: true, text: current };
}
