import * as assert from 'node:assert/strict';
import { sha256 } from '../../src/core/approval/hash';
import { AuditLine, AuditLog, type UndoAuditEntry } from '../../src/core/audit/auditLog';
import type { CommandGitEffect } from '../../src/core/checkpoints/gitStatus';
import type { FileContent } from '../../src/core/checkpoints/schema';
import { CheckpointStore } from '../../src/core/checkpoints/store';
import {
  undoRequest,
  undoWouldChange,
  type PreviewLine,
  UndoRunner,
  type ApplyResult,
  type FileWrite,
  type UndoFiles,
  type UndoQuestions,
  type UndoRequest,
  type UndoResult,
} from '../../src/core/checkpoints/undoRunner';
import { MemoryStore } from '../fixtures/memoryGate';

/** Twelve lines a..l, some replaced: `text({ 1: 'B' })` changes the second line. */
const text = (changes: Record<number, string> = {}): string =>
  Array.from('abcdefghijkl')
    .map((line, i) => `${changes[i] ?? line}\n`)
    .join('');
const O = text();
const A1 = text({ 1: 'B (agent, turn 1)' });
const A2 = text({ 1: 'B (agent, turn 1)', 8: 'I (agent, turn 2)' });

/** The workspace's files in memory; a write applies only onto the version it was planned against. */
class FakeFiles implements UndoFiles {
  readonly files: Map<string, FileContent>;
  readonly applied: FileWrite[][] = [];
  /** Runs just before each apply (a person typing while the undo is prepared). */
  beforeApply: (() => void) | undefined;
  refuse: string | undefined;
  unreadable: string | undefined;
  /** Paths whose writes an apply reports done but does not carry out (as VS Code skipped an edit of deletes alone). */
  readonly skipped = new Set<string>();
  /** Paths unreadable once an apply ran. */
  readonly unreadableAfter = new Set<string>();

  constructor(files: Record<string, FileContent>) {
    this.files = new Map(Object.entries(files));
  }
  read(path: string): Promise<FileContent> {
    if (this.applied.length > 0 && this.unreadableAfter.has(path)) {
      return Promise.reject(new Error('EACCES: permission denied'));
    }
    return path === this.unreadable ? Promise.reject(new Error(`${path} is a folder`)) : Promise.resolve(this.files.get(path) ?? null);
  }
  apply(writes: readonly FileWrite[]): Promise<ApplyResult> {
    this.beforeApply?.();
    if (this.refuse !== undefined) {
      return Promise.resolve({ kind: 'refused', message: this.refuse });
    }
    for (const write of writes) {
      const now = this.files.get(write.path) ?? null;
      if (write.expected.exists !== (now !== null) || write.expected.hash !== sha256(now ?? '')) {
        return Promise.resolve({ kind: 'changed', path: write.path });
      }
    }
    for (const write of writes.filter((candidate) => !this.skipped.has(candidate.path))) {
      this.files.set(write.path, write.text);
    }
    this.applied.push([...writes]);
    return Promise.resolve({ kind: 'applied' });
  }
}

type Change = [turn: number, path: string, before: FileContent, after: FileContent];
type Command = [turn: number, command: string, git: CommandGitEffect];

interface Setup {
  runner: UndoRunner;
  files: FakeFiles;
  store: CheckpointStore;
  asked: string[];
  audit: UndoAuditEntry[];
}

async function setup(
  changes: Change[],
  current: Record<string, FileContent>,
  answers: { conflict?: UndoQuestions['conflict']; confirmDelete?: UndoQuestions['confirmDelete'] } = {},
  commands: Command[] = [],
): Promise<Setup> {
  const store = new CheckpointStore(new MemoryStore(), { warn: (message) => assert.fail(message) });
  for (const [turn, path, before, after] of changes) {
    await store.record({ chatId: 'c', taskId: 't', turn, title: 'fix it' }, { kind: 'file', path, relativePath: path.slice(3), tool: 'edit_file', before, after });
  }
  for (const [turn, command, git] of commands) {
    await store.record({ chatId: 'c', taskId: 't', turn }, { kind: 'command', command, cwd: '/w', exitCode: 0, git });
  }
  const asked: string[] = [];
  const audit: UndoAuditEntry[] = [];
  const files = new FakeFiles(current);
  const questions: UndoQuestions = {
    conflict: (file) => {
      asked.push(`conflict ${file.path}`);
      return answers.conflict ? answers.conflict(file) : assert.fail(`asked about a conflict in ${file.path}`);
    },
    confirmDelete: (file) => {
      asked.push(`delete ${file.path}`);
      return answers.confirmDelete ? answers.confirmDelete(file) : assert.fail(`asked to delete ${file.path}`);
    },
  };
  const runner = new UndoRunner({ store, files, questions, audit: { recordUndo: (entry) => audit.push(entry) }, now: () => new Date(Date.UTC(2026, 0, 1)) });
  return { runner, files, store, asked, audit };
}

const task: UndoRequest = { scope: 'task', chatId: 'c' };
const lastTurn: UndoRequest = { scope: 'turn', chatId: 'c' };

function undone(result: UndoResult): Extract<UndoResult, { kind: 'undone' }> {
  if (result.kind !== 'undone') {
    assert.fail(`${result.reason}: ${result.message}`);
  }
  return result;
}

describe('the undo runner', () => {
  const rows: {
    name: string;
    changes: Change[];
    current: Record<string, FileContent>;
    request: UndoRequest;
    answers?: { conflict?: 'keep-mine' | 'use-merge'; confirmDelete?: 'keep' | 'delete' };
    /** The files afterwards (only those named). */
    files: Record<string, FileContent>;
    reverted?: string[];
    left?: string[];
    asked?: string[];
    undoneTurns: number[];
  }[] = [
    {
      name: 'a two-turn task, then a hand edit: undoing the task keeps the hand edit and drops the agent\'s edits',
      changes: [[0, '/w/a.ts', O, A1], [1, '/w/a.ts', A1, A2]],
      current: { '/w/a.ts': text({ 1: 'B (agent, turn 1)', 5: 'F (mine)', 8: 'I (agent, turn 2)' }) },
      request: task,
      files: { '/w/a.ts': text({ 5: 'F (mine)' }) },
      reverted: ['/w/a.ts merged'],
      undoneTurns: [0, 1],
    },
    {
      name: 'the last turn by default: only turn 2 goes',
      changes: [[0, '/w/a.ts', O, A1], [1, '/w/a.ts', A1, A2]],
      current: { '/w/a.ts': A2 },
      request: lastTurn,
      files: { '/w/a.ts': A1 },
      reverted: ['/w/a.ts reverted'],
      undoneTurns: [1],
    },
    {
      name: 'a named turn',
      changes: [[0, '/w/a.ts', O, A1], [1, '/w/b.ts', 'b\n', 'B\n']],
      current: { '/w/a.ts': A1, '/w/b.ts': 'B\n' },
      request: { ...lastTurn, turn: 0 },
      files: { '/w/a.ts': O, '/w/b.ts': 'B\n' },
      reverted: ['/w/a.ts reverted'],
      undoneTurns: [0],
    },
    {
      name: 'a file the agent created, unchanged since: deleted without asking',
      changes: [[0, '/w/new.ts', null, 'new\n']],
      current: { '/w/new.ts': 'new\n' },
      request: task,
      files: { '/w/new.ts': null },
      reverted: ['/w/new.ts deleted'],
      undoneTurns: [0],
    },
    {
      name: 'a file the agent created, changed since: asked, and kept when the person says so',
      changes: [[0, '/w/new.ts', null, 'new\n'], [0, '/w/a.ts', O, A1]],
      current: { '/w/new.ts': 'new\nmine\n', '/w/a.ts': A1 },
      request: task,
      answers: { confirmDelete: 'keep' },
      files: { '/w/new.ts': 'new\nmine\n', '/w/a.ts': O },
      reverted: ['/w/a.ts reverted'],
      left: ['/w/new.ts created-file-kept'],
      asked: ['delete /w/new.ts'],
      undoneTurns: [],
    },
    {
      name: 'a file the agent created, changed since: deleted when the person confirms',
      changes: [[0, '/w/new.ts', null, 'new\n']],
      current: { '/w/new.ts': 'new\nmine\n' },
      request: task,
      answers: { confirmDelete: 'delete' },
      files: { '/w/new.ts': null },
      reverted: ['/w/new.ts deleted'],
      asked: ['delete /w/new.ts'],
      undoneTurns: [0],
    },
    {
      name: 'a conflict, "keep mine": the file is not touched, the turn stays to undo',
      changes: [[0, '/w/a.ts', O, A1]],
      current: { '/w/a.ts': text({ 1: 'B (mine)' }) },
      request: task,
      answers: { conflict: 'keep-mine' },
      files: { '/w/a.ts': text({ 1: 'B (mine)' }) },
      left: ['/w/a.ts conflict-kept'],
      asked: ['conflict /w/a.ts'],
      undoneTurns: [],
    },
    {
      name: 'a conflict, "use the merge": written with its conflict markers',
      changes: [[0, '/w/a.ts', O, A1]],
      current: { '/w/a.ts': text({ 1: 'B (mine)' }) },
      request: task,
      answers: { conflict: 'use-merge' },
      files: {
        '/w/a.ts': text({ 1: ['<<<<<<< current (your edits)', 'B (mine)', "||||||| the agent's result", 'B (agent, turn 1)', '=======', 'b', ">>>>>>> before the agent's change"].join('\n') }),
      },
      reverted: ['/w/a.ts merged-with-conflicts'],
      asked: ['conflict /w/a.ts'],
      undoneTurns: [0],
    },
    {
      name: 'a conflict in the newest change, merged: the older change is left for the next undo',
      changes: [[0, '/w/a.ts', O, A1], [1, '/w/a.ts', text({ 1: 'B (agent, turn 1)', 11: 'L (mine)' }), text({ 1: 'B (agent, turn 1)', 8: 'I (agent)', 11: 'L (mine)' })]],
      current: { '/w/a.ts': text({ 1: 'B (agent, turn 1)', 8: 'I (mine now)', 11: 'L (mine)' }) },
      request: task,
      answers: { conflict: 'use-merge' },
      files: {},
      reverted: ['/w/a.ts merged-with-conflicts'],
      left: ['/w/a.ts older-changes-remain'],
      asked: ['conflict /w/a.ts'],
      undoneTurns: [],
    },
    {
      name: 'a file edited by the agent and deleted since: left, with nothing written',
      changes: [[0, '/w/a.ts', O, A1], [0, '/w/b.ts', 'b\n', 'B\n']],
      current: { '/w/a.ts': null, '/w/b.ts': 'B\n' },
      request: task,
      files: { '/w/a.ts': null, '/w/b.ts': 'b\n' },
      reverted: ['/w/b.ts reverted'],
      left: ['/w/a.ts deleted-since'],
      undoneTurns: [],
    },
    {
      name: 'reverted by hand already: nothing to write, the turn is done',
      changes: [[0, '/w/a.ts', O, A1]],
      current: { '/w/a.ts': O },
      request: task,
      files: { '/w/a.ts': O },
      undoneTurns: [0],
    },
  ];
  for (const row of rows) {
    it(row.name, async () => {
      const answers = row.answers ?? {};
      const { runner, files, store, asked, audit } = await setup(row.changes, row.current, {
        ...(answers.conflict ? { conflict: () => Promise.resolve(answers.conflict ?? 'keep-mine') } : {}),
        ...(answers.confirmDelete ? { confirmDelete: () => Promise.resolve(answers.confirmDelete ?? 'keep') } : {}),
      });
      const result = undone(await runner.undo(row.request));
      for (const [path, content] of Object.entries(row.files)) {
        assert.equal(files.files.get(path) ?? null, content, path);
      }
      assert.deepEqual(result.reverted.map((file) => `${file.path} ${file.how}`), row.reverted ?? []);
      assert.deepEqual(result.left.map((file) => `${file.path} ${file.why}`), row.left ?? []);
      assert.deepEqual(asked, row.asked ?? []);
      assert.deepEqual(result.undoneTurns, row.undoneTurns);
      assert.ok(files.applied.length <= 1, 'everything is written in one go');
      const after = store.tasks('c')[0];
      assert.deepEqual(after?.turns.filter((turn) => turn.undone).map((turn) => turn.turn), row.undoneTurns);
      assert.equal(audit.length, 1);
      assert.deepEqual(audit[0]?.reverted.map((file) => `${file.path} ${file.how}`), row.reverted ?? []);
      assert.deepEqual(audit[0].left.map((file) => `${file.path} ${file.why}`), row.left ?? []);
      assert.equal(audit[0].outcome, 'undone');
    });
  }

  it('never writes over a conflict before the person answers', async () => {
    let answer: (value: 'keep-mine' | 'use-merge') => void = () => undefined;
    const mine = text({ 1: 'B (mine)' });
    const { runner, files } = await setup([[0, '/w/a.ts', O, A1], [0, '/w/b.ts', 'b\n', 'B\n']], { '/w/a.ts': mine, '/w/b.ts': 'B\n' }, {
      conflict: () => new Promise((resolve) => (answer = resolve)),
    });
    const running = runner.undo(task);
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(files.applied, [], 'nothing written while the question is open, not even the clean revert');
    answer('keep-mine');
    const result = undone(await running);
    assert.equal(files.files.get('/w/a.ts'), mine);
    assert.equal(files.files.get('/w/b.ts'), 'b\n');
    assert.deepEqual(result.left.map((file) => file.why), ['conflict-kept']);
  });

  it("previews a turn's undo without asking or writing: what it would put back, ask about, keep, and cannot undo", async () => {
    const mine = text({ 1: 'B (mine)' });
    const { runner, files, asked, audit } = await setup(
      [[0, '/w/a.ts', O, A1], [1, '/w/b.ts', 'b\n', 'B\n'], [1, '/w/c.ts', null, 'new\n'], [1, '/w/d.ts', O, A1], [1, '/w/e.ts', 'e\n', 'E\n']],
      { '/w/a.ts': A1, '/w/b.ts': 'B\n', '/w/c.ts': 'new\n', '/w/d.ts': mine, '/w/e.ts': null },
      {},
      [[1, 'npm test', { kind: 'not-a-repository' }]],
    );
    const preview = await runner.preview({ scope: 'turn', chatId: 'c', taskId: 't', turn: 1 });
    if (preview.kind !== 'preview') {
      assert.fail(preview.message);
    }
    assert.deepEqual(preview.lines.map((line) => `${line.group} ${line.text}`), [
      "revert b.ts: put back as it was before the agent's change",
      'revert c.ts: deleted (the agent created it, and it is unchanged since)',
      "ask d.ts: your later edits overlap the agent's change: you will be asked to keep yours or write a merge",
      'keep e.ts: deleted since the agent changed it; left deleted',
      'command npm test: a terminal command; it ran, and cannot be undone',
    ]);
    assert.deepEqual([asked, files.applied, audit], [[], [], []], 'nothing asked, written or logged');
    const done = await runner.preview({ scope: 'turn', chatId: 'c', taskId: 't', turn: 5 });
    assert.deepEqual(done.kind === 'not-undone' ? done.reason : done.kind, 'nothing-to-undo');
  });

  // Issue 37: an undo of deletes alone was reported done while VS Code had carried out nothing.
  const unverified: { name: string; current: Record<string, FileContent>; skip?: string; unreadable?: string; left: string }[] = [
    { name: 'a delete not carried out', current: { '/w/a.ts': A1, '/w/c.ts': 'new\n' }, skip: '/w/c.ts', left: 'c.ts: NOT deleted: the edit was applied, yet the file is still there; delete it by hand if it should go' },
    { name: 'a write that did not take', current: { '/w/a.ts': A1, '/w/c.ts': 'new\n' }, skip: '/w/a.ts', left: 'a.ts: NOT put back: the edit was applied, yet the file does not hold the text put back' },
    { name: 'a file that cannot be read back', current: { '/w/a.ts': A1, '/w/c.ts': 'new\n' }, unreadable: '/w/a.ts', left: 'a.ts: not known to be put back: it could not be read after the edit (EACCES: permission denied)' },
  ];
  for (const row of unverified) {
    it(`reads back what it wrote: ${row.name} is reported NOT put back, and the same undo offers it again`, async () => {
      const { runner, files, audit } = await setup([[0, '/w/a.ts', O, A1], [0, '/w/c.ts', null, 'new\n']], row.current);
      if (row.skip !== undefined) {
        files.skipped.add(row.skip);
      }
      if (row.unreadable !== undefined) {
        files.unreadableAfter.add(row.unreadable);
      }
      const result = undone(await runner.undo(task));
      assert.deepEqual(result.left.map((file) => [file.why, file.message]), [['not-carried-out', row.left]]);
      assert.equal(result.reverted.length, 1);
      assert.deepEqual(result.undoneTurns, [], 'the turn stays to be undone');
      assert.equal(result.summary, 'Undid task "fix it": 1 file put back; 1 file NOT put back though the edit was applied (see the details).');
      assert.match(result.text, new RegExp(row.left.replace(/[().]/g, '\\$&')));
      assert.deepEqual(audit[0]?.left, [{ path: row.skip ?? row.unreadable, why: 'not-carried-out' }]);
      files.skipped.clear();
      files.unreadableAfter.clear();
      const again = undone(await runner.undo(task));
      assert.deepEqual([again.left, again.undoneTurns], [[], [0]]);
      assert.deepEqual([files.files.get('/w/a.ts'), files.files.get('/w/c.ts')], [O, null]);
    });
  }

  it('names what commands landed without review as kept, in the preview, the summary and the text', async () => {
    const { runner, store } = await setup([[0, '/w/notes.txt', null, 'notes\n']], { '/w/notes.txt': 'notes\n' });
    const ref = { chatId: 'c', taskId: 't', turn: 0 };
    await store.record(ref, { kind: 'unreviewed', command: 'npm run gen', groups: [{ path: 'dist/bundle.js', files: 1 }] });
    await store.record(ref, { kind: 'unreviewed', command: 'git commit -m x', groups: [{ path: '.git/', files: 4 }], more: 2 });
    const preview = await runner.preview(task);
    assert.deepEqual(preview.kind === 'preview' ? preview.lines.filter((line) => line.group === 'keep').map((line) => [line.file, line.text]) : preview, [
      ['dist/bundle.js', 'dist/bundle.js: a git-ignored output of `npm run gen`, landed without review, not kept for undo'],
      ['.git/', ".git/ (4 files): git's own data written by `git commit -m x`, landed without review, not kept for undo"],
      [undefined, '2 more files written by `git commit -m x`: landed without review, not kept for undo'],
    ]);
    const result = undone(await runner.undo(task));
    assert.equal(result.summary, 'Undid task "fix it": 1 file put back; kept dist/bundle.js, 4 files in .git/ and 2 more files: landed without review, not kept for undo.');
    assert.match(result.text, /^dist\/bundle\.js: a git-ignored output of `npm run gen`, landed without review, not kept for undo$/m);
    assert.deepEqual(result.undoneTurns, [0], 'what cannot be undone does not hold the turn');
  });

  it('undoes the last turn, then the one before, then says there is nothing left', async () => {
    const { runner, files } = await setup([[0, '/w/a.ts', O, A1], [1, '/w/a.ts', A1, A2]], { '/w/a.ts': A2 });
    assert.deepEqual(undone(await runner.undo(lastTurn)).turns, [1]);
    assert.deepEqual(undone(await runner.undo(lastTurn)).turns, [0]);
    assert.equal(files.files.get('/w/a.ts'), O);
    const third = await runner.undo(lastTurn);
    assert.deepEqual(third.kind === 'not-undone' ? [third.reason, third.message] : [], ['nothing-to-undo', 'every turn of task "fix it" was already undone']);
    const again = await runner.undo(task);
    assert.deepEqual(again.kind === 'not-undone' ? [again.reason, again.message] : [], ['nothing-to-undo', 'task "fix it" was already undone']);
  });

  it('lists the terminal commands that ran, with the files git saw them touch', async () => {
    const observed: CommandGitEffect = {
      kind: 'observed',
      root: '/w',
      headBefore: 'a'.repeat(40),
      headAfter: 'a'.repeat(40),
      touched: [{ path: 'package-lock.json', before: 'clean', after: ' M' }, { path: 'dist/out.js', before: 'clean', after: '??' }],
      more: 0,
    };
    const { runner, audit } = await setup([[0, '/w/a.ts', O, A1]], { '/w/a.ts': A1 }, {}, [[1, 'npm install', observed], [1, 'ls', { kind: 'not-a-repository' }]]);
    const result = undone(await runner.undo(task));
    assert.deepEqual(result.commands.map((command) => [command.command, command.git?.kind === 'observed' ? command.git.touched.map((file) => file.path) : []]), [
      ['ls', []],
      ['npm install', ['package-lock.json', 'dist/out.js']],
    ]);
    assert.equal(result.summary, 'Undid task "fix it": 1 file put back; 2 terminal commands cannot be undone.');
    assert.match(result.text, /`npm install` \(turn 2, in \/w\) cannot be undone; git saw it touch: package-lock\.json \(clean -> modified\), dist\/out\.js \(clean -> untracked\)/);
    assert.deepEqual(result.undoneTurns, [0, 1]);
    assert.deepEqual(audit[0]?.commands, ['ls', 'npm install']);
  });

  it('a file changed while the undo was prepared: planned again, and the new edit survives', async () => {
    const { runner, files } = await setup([[0, '/w/a.ts', O, A1]], { '/w/a.ts': A1 });
    files.beforeApply = () => {
      files.beforeApply = undefined;
      files.files.set('/w/a.ts', text({ 1: 'B (agent, turn 1)', 10: 'K (typed meanwhile)' }));
    };
    const result = undone(await runner.undo(task));
    assert.equal(files.files.get('/w/a.ts'), text({ 10: 'K (typed meanwhile)' }));
    assert.deepEqual(result.reverted.map((file) => file.how), ['merged']);
  });

  it('an answer is not asked again when the plan is made again for the same file state', async () => {
    const B = text({ 2: 'C (agent)' });
    const { runner, files, asked } = await setup([[0, '/w/a.ts', O, A1], [0, '/w/b.ts', O, B]], { '/w/a.ts': text({ 1: 'B (mine)' }), '/w/b.ts': B }, {
      conflict: () => Promise.resolve('keep-mine'),
    });
    let edits = 0;
    files.beforeApply = () => {
      if (edits++ === 0) {
        files.files.set('/w/b.ts', text({ 2: 'C (agent)', 10: 'K (typed meanwhile)' }));
      }
    };
    undone(await runner.undo(task));
    assert.deepEqual(asked, ['conflict /w/a.ts']);
    assert.equal(files.files.get('/w/b.ts'), text({ 10: 'K (typed meanwhile)' }));
  });

  const failures: { name: string; prepare: (files: FakeFiles) => void; request?: UndoRequest; reason: string; message: RegExp; audited: boolean }[] = [
    {
      name: 'files that keep changing',
      prepare: (files) => {
        let n = 0;
        files.beforeApply = () => files.files.set('/w/a.ts', text({ 1: 'B (agent, turn 1)', 10: `K ${n++}` }));
      },
      reason: 'kept-changing',
      message: /\/w\/a\.ts kept changing while the undo was prepared; nothing was written/,
      audited: true,
    },
    { name: 'an edit VS Code refuses', prepare: (files) => (files.refuse = 'the file is read-only'), reason: 'apply-refused', message: /could not be written \(the file is read-only\)/, audited: true },
    { name: 'a file that cannot be read', prepare: (files) => (files.unreadable = '/w/a.ts'), reason: 'read-failed', message: /\/w\/a\.ts is a folder; nothing was written/, audited: true },
    { name: 'a chat with no checkpoints', prepare: () => undefined, request: { scope: 'task', chatId: 'other' }, reason: 'no-checkpoints', message: /this chat has no changes/, audited: false },
    { name: 'an unknown task', prepare: () => undefined, request: { scope: 'task', chatId: 'c', taskId: 'nope' }, reason: 'no-checkpoints', message: /no checkpoints for task nope/, audited: false },
    { name: 'a turn that made no changes', prepare: () => undefined, request: { scope: 'turn', chatId: 'c', turn: 5 }, reason: 'nothing-to-undo', message: /turn 6 of task "fix it" made no recorded changes/, audited: false },
  ];
  for (const row of failures) {
    it(`writes nothing for ${row.name}`, async () => {
      const { runner, files, store, audit } = await setup([[0, '/w/a.ts', O, A1]], { '/w/a.ts': A1 });
      row.prepare(files);
      const result = await runner.undo(row.request ?? task);
      assert.deepEqual(result.kind === 'not-undone' ? result.reason : result.kind, row.reason);
      assert.match(result.kind === 'not-undone' ? result.message : '', row.message);
      assert.deepEqual(files.applied, []);
      assert.deepEqual(store.tasks('c')[0]?.turns.map((turn) => turn.undone), [false]);
      assert.deepEqual(audit.map((entry) => entry.outcome), row.audited ? [row.reason] : []);
    });
  }

  it('finds a task by id in another chat than the active one', async () => {
    const { runner, files } = await setup([[0, '/w/a.ts', O, A1]], { '/w/a.ts': A1 });
    undone(await runner.undo({ scope: 'task', chatId: 'another chat', taskId: 't' }));
    assert.equal(files.files.get('/w/a.ts'), O);
  });

  it('runs one undo at a time: a second one plans against what the first left', async () => {
    const { runner } = await setup([[0, '/w/a.ts', O, A1], [1, '/w/a.ts', A1, A2]], { '/w/a.ts': A2 });
    const [first, second] = await Promise.all([runner.undo(lastTurn), runner.undo(lastTurn)]);
    assert.deepEqual([undone(first).turns, undone(second).turns], [[1], [0]]);
  });
});

describe('an undo command\'s argument', () => {
  const rows: { name: string; scope: UndoRequest['scope']; arg: unknown; request?: UndoRequest }[] = [
    { name: 'none: the active chat\'s latest', scope: 'task', arg: undefined, request: { scope: 'task', chatId: 'active' } },
    { name: 'a task id', scope: 'task', arg: 't1', request: { scope: 'task', chatId: 'active', taskId: 't1' } },
    { name: 'a chat and a task', scope: 'task', arg: { chatId: 'c2', taskId: 't1' }, request: { scope: 'task', chatId: 'c2', taskId: 't1' } },
    { name: 'a turn, for undoTurn', scope: 'turn', arg: { taskId: 't1', turn: 2 }, request: { scope: 'turn', chatId: 'active', taskId: 't1', turn: 2 } },
    { name: 'a turn, ignored by undoTask', scope: 'task', arg: { turn: 2 }, request: { scope: 'task', chatId: 'active' } },
    { name: 'an empty id', scope: 'task', arg: '' },
    { name: 'a negative turn', scope: 'turn', arg: { turn: -1 } },
    { name: 'an unknown field', scope: 'turn', arg: { task: 't1' } },
    { name: 'something else (a URI from a menu)', scope: 'turn', arg: { scheme: 'file', path: '/w/a.ts' } },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const parsed = undoRequest(row.scope, row.arg, 'active');
      if (row.request) {
        assert.deepEqual(parsed, { kind: 'ok', request: row.request });
      } else {
        assert.equal(parsed.kind === 'invalid' && parsed.result.kind === 'not-undone' ? parsed.result.reason : parsed.kind, 'invalid-argument');
      }
    });
  }
});

describe('the audit log with undo entries', () => {
  it('writes undo lines next to decision lines, both readable, and fires only decisions', async () => {
    const lines: string[] = [];
    const fired: unknown[] = [];
    const log = new AuditLog({ append: (line) => Promise.resolve(void lines.push(line)) }, () => undefined, (error) => assert.fail(String(error)));
    log.onDidRecord((entry) => fired.push(entry));
    log.record({ time: 't', callId: 'c1', tool: 'write_file', argsHash: 'h', verdict: 'allow', decidedBy: 'person', scope: 'once', reason: 'allowed', source: 'agent' });
    const { runner } = await setup([[0, '/w/a.ts', O, A1]], { '/w/a.ts': A1 });
    const result = undone(await runner.undo(task));
    log.recordUndo({
      kind: 'undo',
      time: 't',
      chatId: result.chatId,
      taskId: result.taskId,
      scope: 'task',
      turns: result.turns,
      undoneTurns: result.undoneTurns,
      outcome: 'undone',
      reverted: result.reverted.map((file) => ({ path: file.path, how: file.how })),
      left: [],
      commands: [],
      reason: result.summary,
    });
    await log.flush();
    assert.equal(fired.length, 1);
    const parsed = lines.map((line) => AuditLine.parse(JSON.parse(line)));
    assert.deepEqual(parsed.map((line) => ('kind' in line ? line.kind : line.verdict)), ['allow', 'undo']);
  });
});

// Issue 36: the preview offered Undo while it said nothing would change.
describe('when the undo preview offers Undo', () => {
  const cases: [string, PreviewLine['group'][], boolean][] = [
    ['nothing listed', [], false],
    ['only files already as before, or deleted since', ['keep', 'keep'], false],
    ['only commands that cannot be undone', ['command'], false],
    ['a file to put back', ['keep', 'revert'], true],
    ['a file to ask about', ['command', 'ask'], true],
  ];
  for (const [name, groups, offered] of cases) {
    it(`${name}: ${offered ? 'offered' : 'not offered'}`, () => assert.equal(undoWouldChange(groups.map((group) => ({ group }))), offered));
  }
});
