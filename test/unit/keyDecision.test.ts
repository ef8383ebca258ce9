import * as assert from 'node:assert/strict';
import type { GateInput } from '../../src/core/approval/gate';
import { PathResolver } from '../../src/core/approval/paths';
import { gateCall } from '../../src/core/tools/gateCall';
import { FocusedCalls } from '../../src/core/views/focusedCall';
import { readCommandArg } from '../../src/core/commandArgs';
import { decideFromCommand, type KeyDecisionDeps } from '../../src/core/views/keyDecision';
import { pendingViews } from '../../src/core/views/pendingCall';
import { createMemoryGate } from '../fixtures/memoryGate';

const resolver = new PathResolver(['/ws']);
const write = (relative: string): GateInput => ({
  call: gateCall('write_file', { path: relative, content: 'x' }, resolver),
  preview: { kind: 'diff', path: relative, isNewFile: true, added: 1, removed: 0, hunks: [] },
  source: 'agent',
});

describe('a keyboard decision (Toolgate: Allow Once / Deny) never allows a call the person cannot see', () => {
  const rows: {
    name: string;
    /** The calls waiting, by path; and which one's card holds the focus in the panel, if any. */
    waiting: string[];
    focused?: string;
    panelVisible?: boolean;
    allow: boolean;
    /** The command's argument (Deny: the reason; Allow Once takes none). */
    reason?: unknown;
    /** What the person types in the deny's box (undefined: Escape). */
    typed?: string;
    decided: string | undefined;
    why?: string;
    said: string[];
    brought?: string;
  }[] = [
    { name: 'nothing waits', waiting: [], allow: true, decided: undefined, why: 'no call is waiting', said: ['info Toolgate: no call is waiting for approval.'] },
    {
      name: 'Allow with no card focused brings the oldest into view and decides nothing',
      waiting: ['a.txt', 'b.txt'],
      allow: true,
      decided: undefined,
      why: 'no card had the focus: the oldest waiting call was brought into view',
      said: ['status Toolgate: write_file a.txt is in view; press again to allow it'],
      brought: 'a.txt',
    },
    {
      name: 'Allow of the focused card in a visible panel allows it',
      waiting: ['a.txt', 'b.txt'],
      focused: 'b.txt',
      panelVisible: true,
      allow: true,
      decided: 'b.txt',
      said: ['status Toolgate: allowed once: write_file b.txt', 'announce Toolgate: allowed once: write_file b.txt'],
    },
    {
      name: 'a card focused in a panel that is not visible holds no focus',
      waiting: ['a.txt', 'b.txt'],
      focused: 'b.txt',
      panelVisible: false,
      allow: true,
      decided: undefined,
      why: 'no card had the focus: the oldest waiting call was brought into view',
      said: ['status Toolgate: write_file a.txt is in view; press again to allow it'],
      brought: 'a.txt',
    },
    {
      name: 'Deny with no card focused takes the oldest, with the reason given',
      waiting: ['a.txt', 'b.txt'],
      allow: false,
      reason: ' not now ',
      decided: 'a.txt',
      said: ['status Toolgate: denied: write_file a.txt', 'announce Toolgate: denied: write_file a.txt'],
    },
    { name: 'Deny whose reason box is escaped keeps the call waiting', waiting: ['a.txt'], allow: false, decided: undefined, why: 'the deny was cancelled', said: ['ask Toolgate: deny write_file a.txt'] },
    {
      name: 'Allow Once given an argument decides nothing, saying why',
      waiting: ['a.txt'],
      focused: 'a.txt',
      panelVisible: true,
      allow: true,
      reason: 'yes',
      decided: undefined,
      why: 'toolgate.allowOnce takes no argument, got a string',
      said: ['warn Toolgate: toolgate.allowOnce takes no argument, got a string'],
    },
    { name: 'Deny given a reason that is not text decides nothing', waiting: ['a.txt'], allow: false, reason: 42, decided: undefined, why: 'toolgate.deny takes a reason (a string), got a number', said: ['warn Toolgate: toolgate.deny takes a reason (a string), got a number'] },
    {
      name: 'Deny asks for a reason when none is given',
      waiting: ['a.txt'],
      allow: false,
      typed: '',
      decided: 'a.txt',
      said: ['ask Toolgate: deny write_file a.txt', 'status Toolgate: denied: write_file a.txt', 'announce Toolgate: denied: write_file a.txt'],
    },
  ];
  for (const row of rows) {
    it(row.name, async () => {
      const { gate } = createMemoryGate();
      const waits = gate.request(row.waiting.map(write), { chatId: 'c' });
      const byPath = (file: string | undefined): string | undefined => pendingViews(gate).find((view) => view.argsJson.includes(`"${file ?? ''}"`))?.callId;
      const focus = new FocusedCalls();
      const focused = byPath(row.focused);
      if (focused !== undefined) {
        focus.report('approvals', focused);
      }
      const said: string[] = [];
      const brought: string[] = [];
      const deps: KeyDecisionDeps = {
        gate,
        focus,
        chat: { visible: false, focusCall: () => false, announce: () => undefined },
        approvals: { visible: row.panelVisible ?? false, focusCall: (callId) => void brought.push(callId), announce: (text) => void said.push(`announce ${text}`) },
        inChat: () => false,
        prompts: {
          info: (text) => void said.push(`info ${text}`),
          warn: (text) => void said.push(`warn ${text}`),
          status: (text) => void said.push(`status ${text}`),
          askReason: (title) => (said.push(`ask ${title}`), Promise.resolve(row.typed)),
        },
      };
      const expected = byPath(row.decided);
      const result = await decideFromCommand(deps, row.allow, row.allow ? readCommandArg('toolgate.allowOnce', row.reason) : readCommandArg('toolgate.deny', row.reason));
      assert.deepEqual(result, expected !== undefined ? { decided: true, callId: expected, tool: 'write_file' } : { decided: false, why: row.why });
      assert.deepEqual(said, row.said);
      assert.deepEqual(brought, row.brought === undefined ? [] : [byPath(row.brought)]);
      gate.cancel('test over');
      await Promise.all(waits);
    });
  }
});
