/**
 * The chat's inline cards: each call of this chat's agent that waits for the person, with its target, a compact diff
 * (or the command and its analysis) and the decision buttons, in a "Waiting for you" section at the end of the
 * transcript. The host's state is the truth: a card is shown while its call is in `pending` and goes when it is not,
 * whichever view decided. Cards are kept by call id across pushes, so a reason being typed survives them.
 */
import type { DecideMessage, PendingCallView } from '../../src/shared/approvals';
import { renderDiff } from '../approvals/diffView';
import { hunkReviewOf, type HunkReview } from '../approvals/hunkReview';
import type { Bridge } from '../shared/bridge';
import { h, icon } from '../shared/bridge';
import { GroupCard, pendingItems } from '../shared/groupCard';
import { EditNote, isEdited, labelAllowForEdit, shownEditRevision } from '../shared/heldEdit';
import { allowButton, commandPreview, denyWithReason, grantControls, reasonLine, reportFocus, warningNotes } from '../shared/callParts';

/** Rows of a diff shown inline before it scrolls; the panel shows the whole review. */
const inlineDiffRows = 12;

type Decision = Pick<DecideMessage, 'action'> & Partial<Pick<DecideMessage, 'reason' | 'grantOption'>>;

interface Card {
  element: HTMLElement;
  /** Where a keyboard user arriving in the chat lands: Allow once, or Deny when the allow would lift the sandbox. */
  allowOnce: HTMLElement;
  /** A diff decided hunk by hunk: the host's hunk choices, shared with the panel and the diff editor. */
  review?: HunkReview;
  /** A group's one card (a staged command's files). */
  group?: GroupCard;
  /** Takes the host's newer state of the call (its edit). */
  update?: (call: PendingCallView) => void;
}

/** What the card names as the call's target: the file, the command, else the compact arguments. */
export function callTarget(call: PendingCallView): string {
  switch (call.preview.kind) {
    case 'diff':
      return call.preview.path;
    case 'command':
      return call.preview.command;
    case 'none': {
      const compact = call.argsJson.replace(/\s+/g, ' ');
      return compact.length > 80 ? `${compact.slice(0, 79)}…` : compact;
    }
  }
}

export class InlineCards {
  readonly element: HTMLElement;
  private readonly list: HTMLElement;
  private readonly cards = new Map<string, Card>();
  /** Set when this view decided: once the call is gone, the focus goes to the next waiting card. */
  private decidedHere = false;

  constructor(
    private readonly bridge: Bridge,
    /** Where the focus goes when no call is left to decide. */
    private readonly focusAfterLast: () => void,
  ) {
    this.list = h('div', { class: 'inline-calls', role: 'list', 'aria-label': 'Calls waiting for your approval' });
    this.element = h('section', { class: 'waiting-section', 'data-field': 'inline-calls', 'aria-label': 'Waiting for you', hidden: true },
      h('h2', { class: 'waiting-title' }, icon('shield'), ' Waiting for you'),
      this.list);
  }

  /** Shows exactly `pending`, in order; returns whether a card was added (the transcript then scrolls to it). */
  render(pending: PendingCallView[]): boolean {
    const items = pendingItems(pending);
    const keys = new Set(items.map((item) => item.key));
    let hadFocus = false;
    for (const [key, card] of this.cards) {
      if (!keys.has(key)) {
        hadFocus ||= card.element.contains(document.activeElement);
        card.element.remove();
        this.cards.delete(key);
      }
    }
    let added = false;
    let previous: HTMLElement | undefined;
    for (const item of items) {
      let card = this.cards.get(item.key);
      if ('call' in item) {
        if (card?.review && item.call.hunkChoices) {
          card.review.apply(item.call.hunkChoices);
        }
        card?.update?.(item.call);
        card ??= this.renderCard(item.call);
      } else if (card?.group) {
        card.group.update(item.members);
      } else {
        const group = new GroupCard(item.group, { bridge: this.bridge, className: 'inline-call', maxRows: inlineDiffRows, onDecided: () => (this.decidedHere = true) });
        group.update(item.members);
        card = { element: group.element, allowOnce: group.allow, group };
      }
      if (!this.cards.has(item.key)) {
        this.cards.set(item.key, card);
        added = true;
        if (previous) {
          previous.after(card.element);
        } else {
          this.list.prepend(card.element);
        }
      }
      previous = card.element;
    }
    this.element.hidden = pending.length === 0;
    if (hadFocus || (this.decidedHere && !items.some((item) => this.cards.get(item.key)?.element.dataset['sent'] === 'true'))) {
      this.decidedHere = false;
      const next = items[0] && this.cards.get(items[0].key);
      if (next) {
        // The card, not its Allow: a second Enter must not allow a call the person has not looked at yet.
        next.element.focus();
        next.element.scrollIntoView({ block: 'nearest' });
      } else {
        this.focusAfterLast();
      }
    }
    return added;
  }

  /** The first waiting card's Allow once, for a keyboard user arriving in the chat. */
  focusFirst(): boolean {
    const first = this.cards.values().next();
    if (first.done === true) {
      return false;
    }
    first.value.allowOnce.focus();
    return true;
  }

  private renderCard(call: PendingCallView): Card {
    const target = callTarget(call);
    const which = `${call.tool} ${target}`;
    const card = h('article', {
      class: 'inline-call',
      role: 'listitem',
      'data-call-id': call.callId,
      'data-tool': call.tool,
      'data-args-hash': call.argsHash,
      'aria-label': `${which}: waiting for your approval`,
      tabindex: '-1',
    });
    reportFocus(card, call.callId, this.bridge);
    let latest = call;
    const decide = (decision: Decision): void => {
      card.dataset['sent'] = 'true';
      this.decidedHere = true;
      // The edit this card shows, by revision: an edit made elsewhere since is not allowed unseen.
      this.bridge.send({ type: 'decide', callId: call.callId, argsHash: call.argsHash, editRevision: shownEditRevision(latest), ...decision });
    };

    // A diff decided hunk by hunk: Allow once writes only the accepted hunks (the host holds the choices).
    const review = hunkReviewOf(call, this.bridge);
    const allow = allowButton(call, which);
    const allowOnce = allow.element;
    allowOnce.addEventListener('click', () => !review?.allRejected && decide({ action: allow.action }));
    const grantGroup = call.grantable ? grantControls(call, which, (action, grantOption) => decide({ action, grantOption })) : undefined;
    const grantButtons = grantGroup?.buttons ?? [];
    const { deny, reasonArea } = denyWithReason(which, (reason) => decide({ action: 'deny', ...(reason === undefined ? {} : { reason }) }));
    const openPanel = h('a', { href: '#', class: 'open-panel', 'data-action': 'open-approvals' }, 'Open in the Approvals panel');
    openPanel.addEventListener('click', (event) => {
      event.preventDefault();
      this.bridge.command('openApprovals');
    });

    const preview = call.preview;
    let previewEl: HTMLElement;
    if (preview.kind === 'diff') {
      const diff = renderDiff(preview, () => this.bridge.send({ type: 'openDiff', callId: call.callId }), review, inlineDiffRows);
      previewEl = diff.element;
      if (review) {
        card.addEventListener('keydown', (event) => {
          const target = event.target;
          const typing = target instanceof HTMLTextAreaElement || target instanceof HTMLInputElement || target instanceof HTMLSelectElement;
          if (!typing && diff.handleKey(event)) {
            event.preventDefault();
          }
        });
      }
    } else if (preview.kind === 'command') {
      previewEl = commandPreview(preview);
    } else {
      previewEl = h('pre', { class: 'args-inline', 'data-field': 'args' }, call.argsJson);
    }

    const editNote = new EditNote(call.editable?.kind === 'content' ? () => this.bridge.send({ type: 'openDiff', callId: call.callId }) : undefined);
    const update = (next: PendingCallView): void => {
      latest = next;
      editNote.update(next);
      labelAllowForEdit(allowOnce, next, allow.action === 'allow-unconfined' ? 'Run without sandbox' : 'Allow once');
      for (const button of grantButtons) {
        button.toggleAttribute('disabled', isEdited(next) || (review !== undefined && review.acceptedCount < review.count));
      }
    };
    card.append(
      h('header', { class: 'call-header' },
        h('code', { class: 'tool' }, call.tool),
        h('span', { class: 'target', 'data-field': 'target', title: target }, target)),
      reasonLine(call.reason),
      ...warningNotes(call.warnings),
      previewEl,
      editNote.element,
      review ? hunkSummary(review, allowOnce, grantButtons) : '',
      h('div', { class: 'actions' }, allowOnce, deny),
      reasonArea,
      grantGroup?.element ?? '',
      h('p', { class: 'more' }, openPanel),
    );
    update(call);
    // A keyboard user arriving lands on Allow once, but never on "Run without sandbox": on Deny then.
    return { element: card, allowOnce: allow.action === 'allow-unconfined' ? deny : allowOnce, update, ...(review ? { review } : {}) };
  }
}

/**
 * "2 of 3 hunks accepted" on the card, in step with the host's choices: with every hunk rejected Allow once is off
 * (Deny refuses the call); with any rejected the grants are off, since a grant allows the whole change.
 */
function hunkSummary(review: HunkReview, allowOnce: HTMLElement, grantButtons: HTMLElement[]): HTMLElement {
  const summary = h('p', { class: 'hunk-status', role: 'status', 'data-field': 'hunk-summary' });
  const sync = (): void => {
    summary.textContent = review.allRejected ? `${review.summary()}: use Deny to refuse the whole call` : review.summary();
    allowOnce.toggleAttribute('disabled', review.allRejected);
    for (const button of grantButtons) {
      button.toggleAttribute('disabled', review.acceptedCount < review.count);
    }
  };
  review.onDidChange(sync);
  sync();
  return summary;
}
