/**
 * A waiting call's edit, as every card shows it: the host holds one edit per call (made in the panel's box, the chat
 * or the diff editor's proposed side), so each card says that the call was edited, where, and what Allow then writes
 * or runs, and its Allow names the edit revision it showed (the host refuses an Allow for another).
 */
import type { PendingCallView } from '../../src/shared/approvals';
import { editOfProposal } from './editPreview';
import { h, icon } from './elements';
import { analysisList } from './callParts';

const whereNames: Record<NonNullable<NonNullable<PendingCallView['edit']>['where']>, string> = {
  panel: 'the Approvals panel',
  chat: 'the chat',
  'diff-editor': "VS Code's diff editor",
};

/** The revision of the call's edit this card shows (0: none), which its decisions name. */
export function shownEditRevision(call: Pick<PendingCallView, 'edit'>): number {
  return call.edit?.revision ?? 0;
}

/** Whether the call carries an edit now. */
export function isEdited(call: Pick<PendingCallView, 'edit'>): boolean {
  return call.edit?.text !== undefined;
}

/**
 * "Edited in the diff editor: Allow writes this version", with the edit as a diff against the proposal (content) or
 * the command that runs instead; empty while the call is as proposed.
 */
export class EditNote {
  readonly element = h('div', { class: 'edit-note', 'data-field': 'held-edit', role: 'status', hidden: true });
  private shown: string | undefined;

  constructor(private readonly onOpenDiff: (() => void) | undefined) {}

  update(call: PendingCallView): void {
    const text = call.edit?.text;
    if (text === this.shown) {
      return;
    }
    this.shown = text;
    if (text === undefined || call.editable === undefined) {
      this.element.hidden = true;
      this.element.replaceChildren();
      return;
    }
    const where = call.edit?.where === undefined ? '' : ` in ${whereNames[call.edit.where]}`;
    const what = call.editable.kind === 'command' ? 'Allow runs this command instead of the proposed one' : 'Allow writes this version, not the proposal';
    this.element.hidden = false;
    const analysis = call.edit?.analysis;
    this.element.replaceChildren(
      h('p', { class: 'notice info' }, icon('edit'), ` Edited${where}: ${what}. The model is told.`),
      editOfProposal(call, call.editable, text, this.onOpenDiff),
      ...editAnalysis(analysis),
    );
  }
}

/** The edited command read as the proposal was (the host's analysis): what it does, before the person runs it. */
export function editAnalysis(analysis: NonNullable<PendingCallView['edit']>['analysis']): HTMLElement[] {
  return analysis === undefined ? [] : [
    h('p', { class: 'edit-verdict', 'data-field': 'edit-verdict' }, `The edited command, as your rules read it: ${analysis.plain}`),
    analysisList(analysis.lines, 'edit-analysis'),
  ];
}

/** An Allow button that says when it allows the edit rather than the proposal. */
export function labelAllowForEdit(button: HTMLElement, call: Pick<PendingCallView, 'edit' | 'editable'>, label: string): void {
  const edited = isEdited(call);
  const text = edited ? (call.editable?.kind === 'command' ? 'Run edited' : 'Allow edited') : label;
  const node = [...button.childNodes].reverse().find((child) => child.nodeType === Node.TEXT_NODE);
  if (node && node.textContent !== text) {
    node.textContent = text;
  }
  button.dataset['edited'] = String(edited);
}
