/**
 * The checkpoint budget (`toolgate.checkpoints.maxMegabytes`): what is dropped, and in which order, to bring the stored
 * tasks back within it. Pure: the store (store.ts) applies each drop, sizes the task again and asks for the next one.
 *
 * The order: a turn being recorded that alone is over the budget is not kept, and costs nothing older; then the oldest
 * tasks go first, then the oldest turns of the task being recorded (the newest task, when the budget shrinks).
 */

export const DEFAULT_CHECKPOINT_BUDGET_BYTES = 16 * 1024 * 1024;

/** What the budget sees of the stored tasks. */
export interface BudgetView {
  budget: number;
  /** Every stored task's size in bytes, oldest first; `current` is the task being recorded, kept to the last. */
  tasks: readonly { bytes: number; current: boolean }[];
  /** The current task's turns, oldest first (none without a current task). */
  currentTurns: readonly number[];
}

/** The next thing to drop: the task at `index` of the view's tasks, or the current task's `turn`. */
export type BudgetDrop = { kind: 'task'; index: number } | { kind: 'turn'; turn: number };

/** Whether the turn being recorded is kept, given the size its task would have with that turn alone. */
export const keepsTurnAlone = (budget: number, aloneBytes: number): boolean => aloneBytes <= budget;

/** What to drop next to come within the budget; undefined when it fits, or when nothing is left to drop. */
export function nextDrop(view: BudgetView): BudgetDrop | undefined {
  const total = view.tasks.reduce((sum, task) => sum + task.bytes, 0);
  if (total <= view.budget) {
    return undefined;
  }
  const oldest = view.tasks.findIndex((task) => !task.current);
  if (oldest !== -1) {
    return { kind: 'task', index: oldest };
  }
  const turn = view.currentTurns[0];
  return turn === undefined ? undefined : { kind: 'turn', turn };
}

/** The turns as a person counts them (1-based), in a list. */
function turnList(turns: readonly number[]): string {
  return turns.map((turn) => turn + 1).join(', ');
}

/** What the notes say of each drop. */
export const budgetMessages = {
  turnOverBudget: (turn: number, budget: number): string =>
    `the changes of turn ${turn + 1} are larger than the checkpoint budget (${budget} bytes) and were not kept; they cannot be undone`,
  taskDropped: (task: string): string =>
    `the checkpoints of task "${task}" were dropped to stay within the checkpoint budget; its changes can no longer be undone`,
  turnDropped: (turn: number, task: string): string =>
    `the checkpoints of turn ${turnList([turn])} of task "${task}" were dropped to stay within the checkpoint budget; that turn can no longer be undone`,
};
