/**
 * What is typed or saved in the diff editor's proposed side, kept as the call's held edit (the gate's, the same live
 * state as the panel's and the chat's). An edit the gate refuses is logged, and told to the person once per call (not
 * at every pause in their typing): what was typed there is not what an Allow writes.
 */
import type { Gate } from '../approval/gate';
import type { Disposable } from '../disposable';
import type { LogPort } from '../logPort';
import { pendingView, type GateState } from './pendingCall';
import type { HeldEditPort } from './proposedSides';

export class DiffEditorEdits implements HeldEditPort, Disposable {
  /** Calls whose refused edit was already told to the person. */
  private readonly told = new Set<string>();
  private readonly subscription: Disposable;

  constructor(
    private readonly gate: GateState & Pick<Gate, 'setEdit' | 'heldEdit' | 'onDidChange'>,
    private readonly log: LogPort,
    /** Tells the person, with a way to the Approvals panel. */
    private readonly tell: (warning: string) => void,
  ) {
    this.subscription = gate.onDidChange(() => {
      const waiting = new Set(gate.waitingCalls().map((call) => call.callId));
      [...this.told].filter((callId) => !waiting.has(callId)).forEach((callId) => this.told.delete(callId));
    });
  }

  get(callId: string): ReturnType<HeldEditPort['get']> {
    return this.gate.heldEdit(callId);
  }

  set(callId: string, text: string): void {
    const call = pendingView(this.gate, callId);
    const outcome = call ? this.gate.setEdit(call, text, 'diff-editor') : { ok: false as const, error: `call ${callId} is no longer waiting` };
    if (outcome.ok) {
      this.told.delete(callId);
      return;
    }
    this.log.warn(`the diff editor's edit of ${callId} was not kept: ${outcome.error}`);
    if (call && !this.told.has(callId)) {
      this.told.add(callId);
      // Never silent: what was typed here is not what an Allow writes, and the person hears it while typing.
      this.tell(
        `Toolgate: what you typed in the diff editor is not kept for ${call.tool} ${call.preview.kind === 'diff' ? call.preview.path : ''}: ${outcome.error}. ` +
          'An Allow writes the proposal as it is. Edit it on its card, or deny it with a reason.',
      );
    }
  }

  dispose(): void {
    this.subscription.dispose();
  }
}
