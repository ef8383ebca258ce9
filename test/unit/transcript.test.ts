import * as assert from 'node:assert/strict';
import { ChatBook } from '../../src/core/agent/chats';
import { TranscriptWriter } from '../../src/core/agent/transcript';
import { MemoryLog } from '../fixtures/memoryFiles';
import { MemoryStore } from '../fixtures/memoryGate';

describe("the transcript shows that the model is being waited for, and each retry with its countdown", () => {
  const setup = () => {
    const book = new ChatBook(new MemoryStore(), new MemoryLog());
    let now = 1_000_000;
    const writer = new TranscriptWriter(book, book.current, () => now);
    const advance = (ms: number): void => {
      now += ms;
    };
    return { book, writer, advance, entries: () => book.current.entries };
  };

  it('a turn starts as a streaming entry stamped with when the request went out', () => {
    const { writer, entries } = setup();
    writer.onEvent({ type: 'turnStart', step: 1 });
    assert.deepEqual(
      entries().map(({ kind, ...rest }) => ({ kind, ...('since' in rest ? { since: rest.since, streaming: rest.streaming } : {}) })),
      [{ kind: 'assistant', since: 1_000_000, streaming: true }],
    );
  });

  it('a retry adds a notice that counts down to the next attempt; the next thing that happens ends the countdown', () => {
    const { writer, entries, advance } = setup();
    writer.onEvent({ type: 'turnStart', step: 1 });
    advance(2000);
    writer.onEvent({ type: 'retry', attempt: 2, maxAttempts: 3, delayMs: 8000, reason: 'answered 503 (overloaded)' });
    const notice = entries().find((entry) => entry.kind === 'notice');
    assert.ok(notice?.kind === 'notice');
    assert.equal(notice.text, 'The model endpoint answered 503 (overloaded); trying again (attempt 2 of 3).');
    assert.equal(notice.retryAt, 1_010_000);
    const assistant = entries().find((entry) => entry.kind === 'assistant');
    assert.equal(assistant?.kind === 'assistant' ? assistant.since : undefined, 1_010_000, 'the wait counts from the new attempt');

    writer.onEvent({ type: 'retry', attempt: 3, maxAttempts: 3, delayMs: 500, reason: 'answered 503 (overloaded)' });
    const notices = entries().filter((entry) => entry.kind === 'notice');
    assert.deepEqual(notices.map((entry) => entry.retryAt !== undefined), [false, true], 'only the latest retry counts down');
    writer.onEvent({ type: 'text', delta: 'Hello' });
    assert.equal(entries().some((entry) => entry.kind === 'notice' && entry.retryAt !== undefined), false);
  });
});

describe('a finished write or edit in the transcript names where its change is kept (its link to the diff)', () => {
  const call = (id: string, name: string, args: Record<string, unknown>) => ({ id, name, arguments: JSON.stringify(args) });
  const rows: { name: string; taskId?: string; status: 'done' | 'failed' | 'denied'; tool: string; args: Record<string, unknown>; change?: { turn: number; file: string } }[] = [
    { name: 'a write that ran, in the second turn', taskId: 't1', status: 'done', tool: 'write_file', args: { path: 'a.txt', content: 'x' }, change: { turn: 1, file: 'a.txt' } },
    { name: 'an edit that ran', taskId: 't1', status: 'done', tool: 'edit_file', args: { path: './src/b.ts', edits: [{ old: 'a', new: 'b' }] }, change: { turn: 1, file: './src/b.ts' } },
    { name: 'a denied write: nothing changed', taskId: 't1', status: 'denied', tool: 'write_file', args: { path: 'a.txt', content: 'x' } },
    { name: 'a failed edit', taskId: 't1', status: 'failed', tool: 'edit_file', args: { path: 'a.txt', edits: [] } },
    { name: 'a read', taskId: 't1', status: 'done', tool: 'read_file', args: { path: 'a.txt' } },
    { name: 'a write outside a task (no checkpoints)', status: 'done', tool: 'write_file', args: { path: 'a.txt', content: 'x' } },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const book = new ChatBook(new MemoryStore(), new MemoryLog());
      const writer = new TranscriptWriter(book, book.current, Date.now, row.taskId);
      writer.onEvent({ type: 'turnStart', step: 1 });
      writer.onEvent({ type: 'turnStart', step: 2 });
      writer.onEvent({ type: 'toolCalls', calls: [call('c1', row.tool, row.args)] });
      writer.onEvent({ type: 'toolStatus', callId: 'c1', status: row.status, output: 'ok' });
      const entry = book.current.entries.find((candidate) => candidate.kind === 'tool');
      assert.ok(entry?.kind === 'tool');
      assert.deepEqual(entry.change, row.change === undefined ? undefined : { taskId: row.taskId, ...row.change });
    });
  }
});
