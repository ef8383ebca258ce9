import * as assert from 'node:assert/strict';
import { type BudgetDrop, type BudgetView, budgetMessages, keepsTurnAlone, nextDrop } from '../../src/core/checkpoints/budget';

const task = (bytes: number, current = false): BudgetView['tasks'][number] => ({ bytes, current });

describe('the checkpoint budget', () => {
  const rows: { name: string; view: BudgetView; drop: BudgetDrop | undefined }[] = [
    { name: 'within the budget, nothing', view: { budget: 100, tasks: [task(40), task(60, true)], currentTurns: [0, 1] }, drop: undefined },
    { name: 'exactly the budget fits', view: { budget: 100, tasks: [task(100, true)], currentTurns: [0] }, drop: undefined },
    { name: 'no tasks, nothing', view: { budget: 0, tasks: [], currentTurns: [] }, drop: undefined },
    { name: 'over: the oldest task first', view: { budget: 100, tasks: [task(30), task(30), task(50, true)], currentTurns: [0] }, drop: { kind: 'task', index: 0 } },
    { name: 'the current task is passed over, even when oldest', view: { budget: 100, tasks: [task(90, true), task(20)], currentTurns: [0] }, drop: { kind: 'task', index: 1 } },
    { name: 'no other task: the oldest turn of the current one', view: { budget: 100, tasks: [task(150, true)], currentTurns: [2, 3, 5] }, drop: { kind: 'turn', turn: 2 } },
    { name: 'the current task has no turns left: nothing to drop', view: { budget: 100, tasks: [task(150, true)], currentTurns: [] }, drop: undefined },
    { name: 'no current task (a budget change found it unreadable): the oldest task', view: { budget: 10, tasks: [task(20), task(20)], currentTurns: [] }, drop: { kind: 'task', index: 0 } },
  ];
  for (const row of rows) {
    it(`next drop: ${row.name}`, () => {
      assert.deepEqual(nextDrop(row.view), row.drop);
    });
  }

  const alone: { budget: number; bytes: number; kept: boolean }[] = [
    { budget: 100, bytes: 99, kept: true },
    { budget: 100, bytes: 100, kept: true },
    { budget: 100, bytes: 101, kept: false },
  ];
  for (const row of alone) {
    it(`a turn of ${row.bytes} bytes alone, budget ${row.budget}: ${row.kept ? 'kept' : 'not kept'}`, () => {
      assert.equal(keepsTurnAlone(row.budget, row.bytes), row.kept);
    });
  }

  it('drops everything in order until it fits: older tasks, then the current task\'s oldest turns', () => {
    // Each turn of the current task costs 40 bytes; dropping one takes its bytes off the task.
    const view: BudgetView = { budget: 100, tasks: [task(50), task(30), task(160, true)], currentTurns: [0, 1, 2, 3] };
    const drops: BudgetDrop[] = [];
    for (let drop = nextDrop(view); drop !== undefined; drop = nextDrop(view)) {
      drops.push(drop);
      if (drop.kind === 'task') {
        view.tasks = view.tasks.filter((_task, index) => index !== drop.index);
      } else {
        view.currentTurns = view.currentTurns.slice(1);
        view.tasks = view.tasks.map((entry) => (entry.current ? task(entry.bytes - 40, true) : entry));
      }
    }
    assert.deepEqual(drops, [{ kind: 'task', index: 0 }, { kind: 'task', index: 0 }, { kind: 'turn', turn: 0 }, { kind: 'turn', turn: 1 }]);
  });

  it('says each drop with the turn counted from 1 and the task by name', () => {
    assert.equal(budgetMessages.turnDropped(2, 'fix the tests'), 'the checkpoints of turn 3 of task "fix the tests" were dropped to stay within the checkpoint budget; that turn can no longer be undone');
    assert.equal(budgetMessages.turnOverBudget(0, 1024), 'the changes of turn 1 are larger than the checkpoint budget (1024 bytes) and were not kept; they cannot be undone');
    assert.equal(budgetMessages.taskDropped('t1'), 'the checkpoints of task "t1" were dropped to stay within the checkpoint budget; its changes can no longer be undone');
  });
});
