/**
 * Where a waiting call shows, and when the Approvals panel opens for a new one (`toolgate.approvals.revealPanel`).
 * The chat shows its own agent's calls as inline cards (../callers.ts: chatShowsCall); every call shows in the panel. The panel takes over the
 * editor only for a call the person would not see otherwise, and never again in a task in which they closed it.
 */
import type { RevealPanel } from '../settings';

/** A call that started waiting since the last look. */
export interface NewCall {
  /** Its inline card is in a chat view that is on screen. */
  inVisibleChat: boolean;
  /** The person closed the panel during the task this call came in (see PanelHold). */
  closedForTask: boolean;
}

export interface RevealInput {
  setting: RevealPanel;
  newCalls: readonly NewCall[];
  panelVisible: boolean;
}

/** Why the panel stays as it is: said in the log, so a person (or a test) can tell a decision from a missed event. */
export type StayReason = 'no new call' | 'already visible' | 'the setting says never' | 'closed by the person in this task' | 'shown in the chat';

export type RevealDecision =
  /** `preserveFocus`: a reveal for a new call never takes the keyboard from where the person is typing. */
  | { reveal: true; preserveFocus: true }
  | { reveal: false; why: StayReason };

/** Whether to reveal the panel for the calls that just started waiting: if any one of them asks for it. */
export function panelReveal({ setting, newCalls, panelVisible }: RevealInput): RevealDecision {
  if (newCalls.length === 0) {
    return { reveal: false, why: 'no new call' };
  }
  if (panelVisible) {
    return { reveal: false, why: 'already visible' };
  }
  if (setting === 'never') {
    return { reveal: false, why: 'the setting says never' };
  }
  const open = newCalls.filter((call) => !call.closedForTask);
  if (open.length === 0) {
    return { reveal: false, why: 'closed by the person in this task' };
  }
  if (setting === 'whenNotVisible' && open.every((call) => call.inVisibleChat)) {
    return { reveal: false, why: 'shown in the chat' };
  }
  return { reveal: true, preserveFocus: true };
}

/**
 * "I closed it, leave it closed": the person's closing the panel while a task runs holds until that task ends; a new
 * task starts with it lifted. Closing it with no task running holds nothing. The window's agent runs one task at a
 * time, so the task is the running one; calls that come in meanwhile from elsewhere (the API) are held with it, since
 * the person said no panel while this task runs (the status bar, the badge and a notification still tell them).
 */
export class PanelHold {
  private running = false;
  private held = false;

  /** The agent's task started (a new task lifts the hold) or ended. */
  taskRunning(running: boolean): void {
    if (running && !this.running) {
      this.held = false;
    }
    this.running = running;
  }

  /** The person closed the panel (not Toolgate, which also closes it when the extension stops). */
  closedByPerson(): void {
    if (this.running) {
      this.held = true;
    }
  }

  /** Whether a call that starts waiting now must not reopen the panel. */
  get closedForTask(): boolean {
    return this.running && this.held;
  }
}

/** The waiting calls not seen before: each call counts as new once, however many times the views are refreshed. */
export class NewCalls {
  private seen = new Set<string>();

  /** `waiting`: the ids of every call waiting now; returns those that were not waiting at the last look. */
  since(waiting: readonly string[]): string[] {
    const fresh = waiting.filter((callId) => !this.seen.has(callId));
    this.seen = new Set(waiting);
    return fresh;
  }
}
