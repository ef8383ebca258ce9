/**
 * "Undo this turn" in the transcript: under the last call of each model turn that changed files, a button that first
 * shows what undoing the turn would put back, ask about and keep (the host plans it, writing nothing), then undoes it.
 * A turn already undone says so instead. The footers are kept by turn, so a preview stays open while entries update.
 */
import type { ChatState, UndoPreviewView } from '../../src/shared/messages';
import { button, h, icon } from '../shared/elements';
import { whenAnswered, type HostChannel } from '../shared/hostChannel';

const groups: { group: UndoPreviewView['lines'][number]['group']; title: string }[] = [
  { group: 'revert', title: 'Put back' },
  { group: 'ask', title: 'Ask you first' },
  { group: 'keep', title: 'Leave as it is' },
  { group: 'command', title: 'Cannot undo' },
];

interface Footer {
  element: HTMLElement;
  undone: boolean | undefined;
}

export class TurnUndos {
  private readonly footers = new Map<string, Footer>();

  constructor(private readonly channel: HostChannel) {}

  /** Puts each turn's footer under its last call (`rendered`: the transcript's entries by id, as drawn). */
  render(state: ChatState, rendered: ReadonlyMap<string, { element: HTMLElement }>): void {
    const lastOfTurn = new Map<string, string>();
    for (const entry of state.entries) {
      if (entry.kind === 'tool' && entry.step !== undefined) {
        lastOfTurn.set(`${entry.step.taskId}:${entry.step.turn}`, entry.id);
      }
    }
    const recorded = new Map(state.turns.map((turn) => [`${turn.taskId}:${turn.turn}`, turn]));
    const live = new Set<string>();
    for (const [key, entryId] of lastOfTurn) {
      const turn = recorded.get(key);
      const host = rendered.get(entryId)?.element;
      if (turn === undefined || host === undefined) {
        continue;
      }
      live.add(key);
      let footer = this.footers.get(key);
      if (footer === undefined || footer.undone !== turn.undone) {
        footer?.element.remove();
        footer = { element: this.footer(entryId, turn.turn, turn.undone), undone: turn.undone };
        this.footers.set(key, footer);
      }
      if (footer.element.parentElement !== host) {
        host.append(footer.element);
      }
    }
    for (const [key, footer] of this.footers) {
      if (!live.has(key)) {
        footer.element.remove();
        this.footers.delete(key);
      }
    }
  }

  private footer(entryId: string, turn: number, undone: boolean): HTMLElement {
    const element = h('div', { class: 'turn-undo', 'data-field': 'turn-undo', 'data-turn': String(turn + 1) });
    if (undone) {
      element.append(h('span', { class: 'muted', 'data-field': 'turn-undone' }, icon('discard'), ` Turn ${turn + 1} was undone.`));
      return element;
    }
    const open = button({ secondary: true, class: 'small', 'data-action': 'undo-turn-preview', 'aria-label': `Undo turn ${turn + 1}: see what it would revert and keep first` }, icon('discard'), 'Undo this turn…');
    open.addEventListener('click', () => {
      open.disabled = true;
      const requestId = this.channel.send({ type: 'previewUndo', entryId });
      whenAnswered(requestId, (answer) => {
        open.disabled = false;
        if (answer.ok && answer.undoPreview !== undefined) {
          open.hidden = true;
          element.append(this.preview(entryId, answer.undoPreview, () => {
            open.hidden = false;
            open.focus();
          }));
        }
      });
    });
    element.append(open);
    return element;
  }

  /** The preview: what undoing would do, grouped, then Undo turn N or Cancel. */
  private preview(entryId: string, preview: UndoPreviewView, onClose: () => void): HTMLElement {
    const box = h('div', { class: 'undo-preview', 'data-field': 'undo-preview', role: 'group', 'aria-label': `Undoing turn ${preview.turn + 1}` },
      h('p', { class: 'undo-preview-title' }, `Undoing turn ${preview.turn + 1} would:`));
    for (const { group, title } of groups) {
      const lines = preview.lines.filter((line) => line.group === group);
      if (lines.length > 0) {
        box.append(h('p', { class: 'undo-group-title' }, title), h('ul', { 'data-group': group }, ...lines.map((line) => h('li', {}, line.text))));
      }
    }
    if (!preview.undoable) {
      // Nothing to put back: no Undo is offered for a change that would not happen.
      box.append(h('p', { class: 'muted', 'data-field': 'nothing-to-undo' }, 'Nothing would change: no file of this turn differs from before it, or what differs cannot be undone.'));
    }
    for (const note of preview.notes) {
      box.append(h('p', { class: 'muted' }, note));
    }
    const error = h('p', { class: 'notice error', role: 'alert', hidden: true });
    const undo = button({ 'data-action': 'undo-turn' }, icon('discard'), `Undo turn ${preview.turn + 1}`);
    const cancel = button({ secondary: preview.undoable, 'data-action': 'undo-cancel' }, preview.undoable ? 'Cancel' : 'Close');
    const close = (): void => {
      box.remove();
      onClose();
    };
    cancel.addEventListener('click', close);
    undo.addEventListener('click', () => {
      undo.disabled = true;
      const requestId = this.channel.send({ type: 'undoTurn', entryId });
      whenAnswered(requestId, (answer) => {
        undo.disabled = false;
        if (answer.ok) {
          // The transcript says what was reverted and kept (a notice); the footer then says the turn was undone.
          close();
        } else {
          error.hidden = false;
          error.textContent = answer.error ?? 'Nothing was undone.';
        }
      });
    });
    box.append(error, h('div', { class: 'actions' }, ...(preview.undoable ? [undo] : []), cancel));
    box.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') {
        event.preventDefault();
        close();
      }
    });
    queueMicrotask(() => (preview.undoable ? undo : cancel).focus());
    return box;
  }
}
