/**
 * Where a waiting write's proposed side lives, as VS Code's diff editor names it: the visible path is the file's own
 * (workspace-relative, so the breadcrumb and the tab read `src/app.ts`), and the call it belongs to is in the query,
 * which nothing shows. The empty original of a new file is the same path with `side=original`.
 */

/** Which side of a call's diff a document is. */
export type ProposedSide = 'proposed' | 'original';

export interface ProposedDocument {
  callId: string;
  side: ProposedSide;
}

/**
 * The parts of a call's document: path `/src/app.ts`, query `call=<id>` (with `&side=original` for a new file's empty
 * side), which is what is read back; and the call and side again as the authority, which nothing shows either, so that
 * two calls that write the same file, or a new file's two sides, are two documents to a language server too (the TypeScript one names a document by its
 * scheme, authority and path, without the query). URIs lower-case an authority, so it is never read back.
 */
export function proposedDocumentParts(
  callId: string,
  target: { relative?: string | undefined; absolute: string },
  side: ProposedSide,
): { authority: string; path: string; query: string } {
  // Outside the workspace folders the file is named by its base name alone: the full path is on the call's card.
  const shown = target.relative ?? target.absolute.split(/[\\/]/).filter(Boolean).pop() ?? 'file';
  const path = `/${shown.split(/[\\/]/).filter((part) => part !== '' && part !== '.').join('/') || 'file'}`;
  const query = new URLSearchParams({ call: callId, ...(side === 'original' ? { side } : {}) }).toString();
  return { authority: `${callId.toLowerCase()}${side === 'original' ? '-original' : ''}`, path, query };
}

/** The call and side a document's query names, or undefined when it names none (any other query, or a forged one). */
export function parseProposedQuery(query: string): ProposedDocument | undefined {
  const params = new URLSearchParams(query);
  const callId = params.get('call');
  const side = params.get('side');
  if (callId === null || callId === '' || (side !== null && side !== 'original')) {
    return undefined;
  }
  return { callId, side: side === 'original' ? 'original' : 'proposed' };
}

/**
 * The 0-based line a proposed side opens on: its first line that differs from the file's (the last line when only
 * lines were removed at the end; 0 when nothing differs). Given to VS Code when the diff opens, so it does not move
 * the cursor to the first change itself once its diff is computed, which can be after the person started typing.
 */
export function firstChangedLine(before: string, after: string): number {
  const old = before.split('\n');
  const proposed = after.split('\n');
  const differs = proposed.findIndex((line, index) => line !== old[index]);
  if (differs !== -1) {
    return differs;
  }
  return old.length > proposed.length ? proposed.length - 1 : 0;
}
