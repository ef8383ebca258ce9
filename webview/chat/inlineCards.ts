/**
 * The chat's inline cards: each call of this chat's agent that waits for the person, in a "Waiting for you" section
 * at the end of the transcript. The cards are the panel's own component in its dense layout (the same decisions,
 * grants, edit and MCP details; the diff capped in height, with a link to the panel), with Allow all / Deny all once
 * two or more wait. The host's state is the truth: a card is shown while its call is in `pending` and goes when it is
 * not, whichever view decided.
 */
import type { PendingCallView } from '../../src/shared/approvals';
import type { HostChannel } from '../shared/hostChannel';
import { h, icon } from '../shared/elements';
import { CardList } from '../shared/cardList';

/** Rows of a diff shown inline before it scrolls; the panel shows the whole review. */
const inlineDiffRows = 12;

export class InlineCards {
  readonly element: HTMLElement;
  private readonly list: CardList;

  constructor(channel: HostChannel, focusAfterLast: () => void) {
    this.list = new CardList({ channel, layout: 'dense', label: 'Calls waiting for your approval', maxRows: inlineDiffRows, focusAfterLast });
    this.element = h('section', { class: 'waiting-section', 'data-field': 'inline-calls', 'aria-label': 'Waiting for you', hidden: true },
      h('h2', { class: 'waiting-title' }, icon('shield'), ' Waiting for you'),
      this.list.batch,
      this.list.element);
  }

  /** Shows exactly `pending`, in order; returns whether a card was added (the transcript then scrolls to it). */
  render(pending: PendingCallView[]): boolean {
    const added = this.list.render(pending);
    this.element.hidden = pending.length === 0;
    return added;
  }

  /** The first waiting card's Allow once, for a keyboard user arriving in the chat. */
  focusFirst(): boolean {
    return this.list.focusFirst();
  }
}
