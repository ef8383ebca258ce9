/**
 * The parts of a group card's view model, table by table: the reason a group's files share (said once), how a command
 * card says it runs, what a staged command's entry says landed, and the command's one-line headline.
 */
import * as assert from 'node:assert/strict';
import './dom';
import type { PendingCallView } from '../../src/shared/approvals';
import { commandSandboxView, withGroupReasons } from '../../src/core/views/pendingCall';
import { landedCounts, type Outcome } from '../../src/core/tools/landingSummary';
import type { StagingStatus } from '../../src/core/sandbox/commandSandbox';
import { landedText } from '../../webview/chat/decisionNote';
import { commandHeadline } from '../../webview/shared/groupCard';

const gated = 'Writes a file; writes always ask (`toolgate.gatedTools`).';
const protectedPath = 'Writes `.vscode/tasks.json`: a protected path, which always asks.';

function view(id: string, reason: string, group?: string): PendingCallView {
  return {
    callId: id, batchId: 'b', tool: 'write_file', source: 'agent', reason, warnings: [], argsHash: '0'.repeat(64), argsJson: '{}',
    preview: { kind: 'none' }, callerLabel: "Toolgate's agent", grantable: false, grantsOffered: [], grantOptions: [], waitingSince: '2026-11-27T00:00:00.000Z',
    ...(group !== undefined ? { group: { id: group, command: 'npm run format', changed: 3 } } : {}),
  };
}

describe('a group card: the reason its files share, said once', () => {
  const rows: { name: string; views: PendingCallView[]; reasons: (string | undefined)[]; shared: (true | undefined)[] }[] = [
    { name: 'no group: nothing changes', views: [view('a', gated), view('b', protectedPath)], reasons: [undefined, undefined], shared: [undefined, undefined] },
    { name: 'every file gives the same reason', views: [view('a', gated, 'g'), view('b', gated, 'g'), view('c', gated, 'g')], reasons: [gated, gated, gated], shared: [true, true, true] },
    { name: 'a protected file among gated ones keeps its own line', views: [view('a', gated, 'g'), view('b', protectedPath, 'g'), view('c', gated, 'g')], reasons: [gated, gated, gated], shared: [true, undefined, true] },
    { name: 'a tie: the first file\'s reason', views: [view('a', protectedPath, 'g'), view('b', gated, 'g')], reasons: [protectedPath, protectedPath], shared: [true, undefined] },
    {
      name: 'two groups and a lone call, each group by its own files',
      views: [view('a', gated, 'g1'), view('x', protectedPath), view('b', protectedPath, 'g2'), view('c', protectedPath, 'g2'), view('d', gated, 'g2')],
      reasons: [gated, undefined, protectedPath, protectedPath, protectedPath],
      shared: [true, undefined, true, true, undefined],
    },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const shown = withGroupReasons(row.views);
      assert.deepEqual(shown.map((one) => one.group?.reason), row.reasons);
      assert.deepEqual(shown.map((one) => one.reasonShared), row.shared);
      // The call's own reason is kept for every other surface (notifications, the diff editor).
      assert.deepEqual(shown.map((one) => one.reason), row.views.map((one) => one.reason));
    });
  }

  it('gives the same object while nothing changed (the views tell a changed call by its object)', () => {
    const views = [view('a', gated, 'g'), view('b', gated, 'g')];
    const first = withGroupReasons(views);
    const again = withGroupReasons(views);
    first.forEach((one, index) => assert.equal(again[index], one));
    const lone = [view('x', gated)];
    assert.equal(withGroupReasons(lone)[0], lone[0]);
  });
});

describe('a command card: where the command runs, as the host knows it', () => {
  const staged: StagingStatus = { staged: true };
  const unstaged: StagingStatus = { staged: false, why: 'setting-off', reason: 'toolgate.sandbox.reviewCommandChanges is off' };
  const noSandbox: StagingStatus = { staged: false, why: 'no-sandbox', reason: 'bubblewrap is not installed' };
  const rows: [string, string, boolean, StagingStatus | undefined, PendingCallView['sandbox']][] = [
    ['confined and staged: its files are reviewed', 'run_in_terminal', false, staged, 'reviewed'],
    ['confined, not staged: in the sandbox, its files land unreviewed', 'run_in_terminal', false, unstaged, 'unreviewed'],
    ['no sandbox here: the card says it runs unconfined instead', 'run_in_terminal', false, noSandbox, undefined],
    ['would run without the sandbox', 'run_in_terminal', true, staged, undefined],
    ['the host cannot say', 'run_in_terminal', false, undefined, undefined],
    ['not a command', 'write_file', false, staged, undefined],
  ];
  for (const [name, tool, unconfined, staging, expected] of rows) {
    it(name, () => assert.equal(commandSandboxView(tool, unconfined, staging), expected));
  }
});

describe("a staged command's entry: what landed, counted and said", () => {
  const landed = (how: 'asked' | 'rule' | 'git' | 'ignored', partial?: string): Pick<Outcome, 'fate'> => ({ fate: { kind: 'landed', how, undoable: true, ...(partial !== undefined ? { partial } : {}) } });
  const refused = (byPerson: boolean): Pick<Outcome, 'fate'> => ({ fate: { kind: 'refused', why: 'x', ...(byPerson ? { byPerson: true as const } : {}) } });
  const rows: { name: string; outcomes: Pick<Outcome, 'fate' | 'git'>[]; counts: ReturnType<typeof landedCounts>; text: string | undefined }[] = [
    { name: 'nothing changed', outcomes: [], counts: { landed: 0, partly: 0, rejected: 0, notLanded: 0, withoutReview: 0 }, text: undefined },
    {
      name: 'five accepted, two rejected',
      outcomes: [...Array.from({ length: 4 }, () => landed('asked')), landed('rule'), refused(true), refused(true)],
      counts: { landed: 5, partly: 0, rejected: 2, notLanded: 0, withoutReview: 0 },
      text: 'Landed 5 files; rejected 2 files.',
    },
    {
      name: 'one in part, one that could not land, ignored output, and git\'s data (not counted)',
      outcomes: [landed('asked'), landed('asked', '1 of 2 hunks'), refused(false), landed('ignored'), landed('ignored'), { ...landed('git'), git: { what: 'object', moves: [] } }],
      counts: { landed: 1, partly: 1, rejected: 0, notLanded: 1, withoutReview: 2 },
      text: 'Landed 2 files (1 in part); 1 file could not land (see its result); 2 files landed without review (git ignores them).',
    },
    { name: 'everything rejected', outcomes: [refused(true)], counts: { landed: 0, partly: 0, rejected: 1, notLanded: 0, withoutReview: 0 }, text: 'Nothing you reviewed landed; rejected 1 file.' },
    { name: 'only ignored output', outcomes: [landed('ignored')], counts: { landed: 0, partly: 0, rejected: 0, notLanded: 0, withoutReview: 1 }, text: '1 file landed without review (git ignores them).' },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const counts = landedCounts(row.outcomes);
      assert.deepEqual(counts, row.counts);
      assert.equal(landedText(counts), row.text);
    });
  }
});

describe("a group card's header: the command on one line", () => {
  const long = `node -e "${'x'.repeat(300)}"`;
  const rows: [string, string, { text: string; cut: boolean }][] = [
    ['a short command, whole', 'npm run format', { text: 'npm run format', cut: false }],
    ['a long one: whole in the line (the view cuts it), offered whole', long, { text: long, cut: true }],
    ['several lines: the first, marked as cut', 'for f in *.ts\ndo sed -i s/a/b/ "$f"\ndone', { text: 'for f in *.ts …', cut: true }],
    ['surrounding blank lines do not count', '\n  npm test\n', { text: 'npm test', cut: false }],
  ];
  for (const [name, command, expected] of rows) {
    it(name, () => assert.deepEqual(commandHeadline(command), expected));
  }
});
