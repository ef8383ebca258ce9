import * as assert from 'node:assert/strict';
import { dom } from './dom';
import type { ChatEntry, WebviewToHost } from '../../src/shared/messages';
import { taskChangesEntry } from '../../webview/chat/taskChanges';

type ChangesEntry = Extract<ChatEntry, { kind: 'changes' }>;
const entry = (overrides: Partial<ChangesEntry>): ChangesEntry => ({ kind: 'changes', id: 'c-1', v: 1, taskId: 't-1', files: [], commands: 0, ...overrides });

describe("the chat's list of a finished task's changes", () => {
  afterEach(() => dom.clear());

  const cases: { name: string; entry: ChangesEntry; title: string; rows: string[]; unreviewed?: string }[] = [
    {
      name: 'files with their counts, created and removed ones said so',
      entry: entry({ files: [
        { file: 'src/app.ts', change: 'modified', added: 12, removed: 3 },
        { file: 'notes.md', change: 'created', added: 4, removed: 0 },
        { file: 'old.txt', change: 'deleted', added: 0, removed: 9 },
      ] }),
      title: 'Changed 3 files +16 −12',
      rows: ['src/app.ts +12 −3', 'notes.md +4 −0 created', 'old.txt +0 −9 removed'],
    },
    {
      name: 'one file and the commands the task ran',
      entry: entry({ files: [{ file: 'a.txt', change: 'modified', added: 1, removed: 1 }], commands: 2 }),
      title: 'Changed 1 file +1 −1 · ran 2 commands',
      rows: ['a.txt +1 −1'],
    },
    {
      name: 'a long list cut, saying how many more',
      entry: entry({ files: [{ file: 'a.txt', change: 'created', added: 1, removed: 0 }], more: 1_204 }),
      title: 'Changed 1,205 files +1 −0',
      rows: ['a.txt +1 −0 created'],
    },
    {
      // Issue 36: files that landed unseen are counted and named, never left out.
      name: 'what landed without review: counted in the title, named by file or folder, said to be unseen',
      entry: entry({ files: [{ file: 'CHANGELOG.md', change: 'modified', added: 1, removed: 0 }], commands: 1, unreviewed: { groups: [{ path: 'a.txt', files: 1 }, { path: 'node_modules/', files: 1204 }], more: 2 } }),
      title: 'Changed 1,208 files +1 −0 · ran 1 command',
      rows: ['CHANGELOG.md +1 −0'],
      unreviewed: 'Landed without review (nobody saw them; they cannot be undone): a.txt, 1,204 files in node_modules/ and 2 more files',
    },
    { name: 'everything undone since: said so, not "Changed 0 files"', entry: entry({ files: [], commands: 1 }), title: 'No changes left: undone', rows: [] },
  ];
  for (const { name, entry: input, title, rows, unreviewed } of cases) {
    it(name, () => {
      const element = taskChangesEntry(input, { send: () => 'r1' });
      const text = (node: Element | null): string => (node?.textContent ?? '').replace(/\s+/g, ' ').trim();
      assert.equal(text(element.querySelector('.changes-title')), title);
      assert.deepEqual([...element.querySelectorAll('li')].map(text), rows);
      assert.equal(element.dataset['entry'], 'changes');
      assert.equal(element.querySelector('[data-field="unreviewed"]') === null ? undefined : text(element.querySelector('[data-field="unreviewed"]')), unreviewed);
    });
  }

  it('a file is a link that asks the host for its diff by the entry and the file it shows, nothing else', () => {
    const sent: Omit<WebviewToHost, 'requestId'>[] = [];
    const element = taskChangesEntry(entry({ files: [{ file: 'src/app.ts', change: 'modified', added: 1, removed: 0 }] }), {
      send: (message) => {
        sent.push(message);
        return 'r1';
      },
    });
    dom.attach(element);
    const link = element.querySelector<HTMLElement>('[data-action="open-task-change"]');
    assert.ok(link);
    assert.equal(link.tagName, 'A', 'a link, reached by Tab and opened by Enter');
    link.click();
    assert.deepEqual(sent, [{ type: 'openTaskChange', entryId: 'c-1', file: 'src/app.ts' }]);
  });
});
