import * as assert from 'node:assert/strict';
import type { PendingCallView } from '../../src/shared/approvals';
import { HostToWebview, type ChatEntry, type ViewState } from '../../src/shared/messages';
import { PatchReader, PatchWriter } from '../../src/shared/statePatch';

const call = (callId: string, reason = 'asks'): PendingCallView => ({
  callId,
  batchId: 'b',
  tool: 'write_file',
  source: 'agent',
  callerLabel: "Toolgate's agent",
  reason,
  warnings: [],
  argsHash: 'a'.repeat(64),
  argsJson: '{}',
  preview: { kind: 'none' },
  grantable: true,
  grantsOffered: ['allow-session', 'allow-task', 'allow-minutes', 'allow-workspace'],
  grantOptions: [],
  waitingSince: '2026-11-24T10:00:00.000Z',
});
const approvals = (pending: PendingCallView[]): Extract<ViewState, { view: 'approvals' }> => ({ view: 'approvals', waitingCalls: pending.length, trusted: true, pending, grants: [] });
const entry = (id: string, v: number, text: string): ChatEntry => ({ kind: 'assistant', id, v, text, streaming: false });
const chat = (entries: ChatEntry[], pending: PendingCallView[] = []): ViewState => ({
  view: 'chat',
  model: { baseUrl: 'http://127.0.0.1:1/v1', name: 'm', provider: 'openai-compatible' },
  waitingCalls: pending.length,
  trusted: true,
  chatId: 'c',
  running: false,
  entries,
  pending,
  chats: [],
  setup: {},
  turns: [],
});

describe('views sent as patches of what the webview holds', () => {
  const rows: { name: string; from: ViewState; to: ViewState; upserted: string[] }[] = [
    { name: 'a call added', from: approvals([call('c1')]), to: approvals([call('c1'), call('c2')]), upserted: ['c2'] },
    { name: 'a call changed', from: approvals([call('c1'), call('c2')]), to: approvals([call('c1'), call('c2', 'now asks twice')]), upserted: ['c2'] },
    { name: 'calls removed (Deny all of 500)', from: approvals(Array.from({ length: 500 }, (_, i) => call(`c${i}`))), to: approvals([]), upserted: [] },
    { name: 'calls reordered', from: approvals([call('c1'), call('c2')]), to: approvals([call('c2'), call('c1')]), upserted: [] },
    { name: 'a chat entry streamed (by its version, not its text)', from: chat([entry('a', 1, 'he')]), to: chat([entry('a', 2, 'hello')]), upserted: ['a'] },
    { name: 'nothing changed but a count', from: approvals([call('c1')]), to: { ...approvals([call('c1')]), waitingCalls: 7 }, upserted: [] },
  ];
  for (const row of rows) {
    it(`${row.name}: the webview rebuilds exactly the host's state, sent only what changed`, () => {
      const writer = new PatchWriter();
      const reader = new PatchReader();
      reader.full(row.from, writer.full(row.from));
      const patch = writer.patch(row.to);
      // What crosses is a valid message of the contract.
      assert.equal(HostToWebview.safeParse({ type: 'patch', sentAt: 1, ...patch }).success, true);
      const upserted = [...(patch.pending?.upsert.map((item) => item.callId) ?? []), ...(patch.entries?.upsert.map((item) => item.id) ?? [])];
      assert.deepEqual(upserted, row.upserted);
      assert.deepEqual(reader.apply(patch), row.to);
    });
  }

  it('200 calls arriving one by one are sent as 200 items in all, not 200 × 200', () => {
    const writer = new PatchWriter();
    const reader = new PatchReader();
    reader.full(approvals([]), writer.full(approvals([])));
    const pending: PendingCallView[] = [];
    let sent = 0;
    for (let i = 0; i < 200; i++) {
      pending.push(call(`c${i}`));
      const patch = writer.patch(approvals([...pending]));
      sent += patch.pending?.upsert.length ?? 0;
      assert.notEqual(reader.apply(patch), 'resync');
    }
    assert.equal(sent, 200);
  });

  const refusals: { name: string; tamper: (patch: ReturnType<PatchWriter['patch']>) => ReturnType<PatchWriter['patch']>; before?: 'no-init' }[] = [
    { name: 'a patch of another version than the one held (one was missed)', tamper: (patch) => ({ ...patch, base: patch.base - 1 }) },
    { name: 'an id the webview never got', tamper: (patch) => ({ ...patch, pending: { order: ['ghost'], upsert: [] } }) },
    { name: 'a patch of another view', tamper: (patch) => ({ ...patch, state: chat([]) }) },
    { name: 'a patch before any whole state', tamper: (patch) => patch, before: 'no-init' },
  ];
  for (const row of refusals) {
    it(`asks for the whole state again on ${row.name}, changing nothing`, () => {
      const writer = new PatchWriter();
      const reader = new PatchReader();
      const start = approvals([call('c1')]);
      const version = writer.full(start);
      if (row.before !== 'no-init') {
        reader.full(start, version);
      }
      assert.equal(reader.apply(row.tamper(writer.patch(approvals([call('c1'), call('c2')])))), 'resync');
    });
  }
});
