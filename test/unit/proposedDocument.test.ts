import * as assert from 'node:assert/strict';
import { firstChangedLine, parseProposedQuery, proposedDocumentParts, type ProposedDocument, type ProposedSide } from '../../src/core/views/proposedDocument';

describe("proposedDocument: a proposed side's path is the file's own, its call is in the query", () => {
  const rows: [title: string, target: { relative?: string; absolute: string }, side: ProposedSide, path: string][] = [
    ['a file in a folder of the workspace', { relative: 'src/app.ts', absolute: '/w/src/app.ts' }, 'proposed', '/src/app.ts'],
    ['a file at the workspace root', { relative: 'README.md', absolute: '/w/README.md' }, 'proposed', '/README.md'],
    ['the empty original of a new file', { relative: 'src/new.ts', absolute: '/w/src/new.ts' }, 'original', '/src/new.ts'],
    ['a file outside the workspace: its base name', { absolute: '/etc/hosts' }, 'proposed', '/hosts'],
    ['a Windows path outside the workspace', { absolute: 'C:\\Users\\me\\notes.txt' }, 'proposed', '/notes.txt'],
    ['a relative path with a leading ./', { relative: './a/b.txt', absolute: '/w/a/b.txt' }, 'proposed', '/a/b.txt'],
  ];
  for (const [title, target, side, path] of rows) {
    it(`${title}: ${path}, and the query gives the call and side back`, () => {
      const parts = proposedDocumentParts('c-1234abcd', target, side);
      assert.equal(parts.path, path);
      assert.ok(!parts.path.includes('c-1234abcd'), 'the call id is not in the visible path');
      assert.deepEqual(parseProposedQuery(parts.query), { callId: 'c-1234abcd', side });
    });
  }

  it('two calls writing one file, and a new file\'s two sides, are told apart without the query (a language server drops it)', () => {
    const target = { relative: 'src/app.ts', absolute: '/w/src/app.ts' };
    const authorities = [
      proposedDocumentParts('c-1', target, 'proposed'),
      proposedDocumentParts('c-2', target, 'proposed'),
      proposedDocumentParts('c-1', target, 'original'),
    ].map(({ authority }) => authority);
    assert.equal(new Set(authorities).size, 3, authorities.join(' '));
  });

  const queries: [query: string, parsed: ProposedDocument | undefined][] = [
    ['call=c-1', { callId: 'c-1', side: 'proposed' }],
    ['call=c-1&side=original', { callId: 'c-1', side: 'original' }],
    ['', undefined],
    ['call=', undefined],
    ['side=original', undefined],
    ['call=c-1&side=other', undefined],
  ];
  for (const [query, parsed] of queries) {
    it(`the query "${query}" names ${parsed === undefined ? 'no call' : `${parsed.callId}, ${parsed.side}`}`, () => {
      assert.deepEqual(parseProposedQuery(query), parsed);
    });
  }
});

describe('proposedDocument: a proposed side opens on its first change', () => {
  const rows: [title: string, before: string, after: string, line: number][] = [
    ['a new file', '', 'one\nTWO\n', 0],
    ['a change on the third line', 'a\nb\nc\nd\n', 'a\nb\nC\nd\n', 2],
    ['lines added at the end', 'a\nb\n', 'a\nb\nc\n', 2],
    ['lines removed at the end', 'a\nb\nc\n', 'a\n', 1],
    ['the whole file removed', 'a\nb\n', '', 0],
    ['nothing differs', 'a\nb\n', 'a\nb\n', 0],
    ['a CRLF file with its second line changed', 'a\r\nb\r\n', 'a\r\nB\r\n', 1],
  ];
  for (const [title, before, after, line] of rows) {
    it(`${title}: line ${line + 1}`, () => {
      assert.equal(firstChangedLine(before, after), line);
    });
  }
});
