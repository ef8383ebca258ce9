/**
 * The waiting calls as cards, the same list in the approvals panel and the chat: one card per call (a group's files on
 * one card), kept by key across the host's pushes, with the batch bar (Allow all / Deny all) once two or more cards
 * wait. After a decision made here, the focus goes to the next card itself, not to its Allow: a second Enter must not
 * allow a call the person has not looked at yet.
 */
import type { PendingCallView } from '../../src/shared/approvals';
import { button, h } from './elements';
import { CallCard, type CallCardOptions } from './callCard';
import { GroupCard, pendingItems, type PendingItem } from './groupCard';
import { KeyedList } from './keyedList';

type Card = { kind: 'call'; element: HTMLElement; card: CallCard } | { kind: 'group'; element: HTMLElement; card: GroupCard };

export interface CardListOptions extends Omit<CallCardOptions, 'onDecided'> {
  /** The list's accessible name. */
  label: string;
  /** Where the focus goes when a decision made here left no call to decide. */
  focusAfterLast?: () => void;
}

export class CardList {
  readonly element: HTMLElement;
  /** "3 waiting · Allow all 3 · Deny all", hidden below two cards; the view places it. */
  readonly batch: HTMLElement;
  private readonly cards: KeyedList<PendingItem, Card>;
  private pending: readonly PendingCallView[] = [];
  /** A card of this list sent a decision: once its call is gone, the focus goes on to the next card. */
  private decidedHere = false;

  constructor(private readonly options: CardListOptions) {
    this.element = h('div', { class: options.layout === 'dense' ? 'inline-calls' : 'calls', role: 'list', 'aria-label': options.label });
    this.batch = h('div', { class: 'batch', 'data-field': 'batch', hidden: true });
    const onDecided = (): void => {
      this.decidedHere = true;
    };
    const className = options.layout === 'dense' ? 'inline-call' : 'call';
    this.cards = new KeyedList<PendingItem, Card>(
      this.element,
      (item) => item.key,
      (item): Card => {
        if ('call' in item) {
          const card = new CallCard(item.call, { ...options, onDecided });
          return { kind: 'call', element: card.element, card };
        }
        const card = new GroupCard(item.group, { channel: options.channel, className, ...(options.maxRows !== undefined ? { maxRows: options.maxRows } : {}), ...(options.modeMemory ? { modeMemory: options.modeMemory } : {}), onDecided });
        card.update(item.members);
        return { kind: 'group', element: card.element, card };
      },
      (card, item) => {
        if (card.kind === 'call' && 'call' in item) {
          card.card.update(item.call);
        } else if (card.kind === 'group' && 'members' in item) {
          card.card.update(item.members);
        }
      },
    );
  }

  /** Shows exactly `pending`, in order; returns whether a card was added (the view may scroll to it). */
  render(pending: readonly PendingCallView[]): boolean {
    this.pending = pending;
    const items = pendingItems(pending);
    const { added, removedFocus } = this.cards.render(items);
    const cards = this.cards.values();
    const stillSending = cards.some((card) => card.element.dataset['sent'] === 'true');
    if (removedFocus || (this.decidedHere && !stillSending)) {
      this.decidedHere = false;
      const next = cards[0];
      if (next) {
        next.element.focus();
        next.element.scrollIntoView({ block: 'nearest' });
      } else {
        this.options.focusAfterLast?.();
      }
    }
    this.renderBatch();
    return added;
  }

  /** The first card's landing (Allow once, or Deny when Allow would lift the sandbox), for a keyboard user arriving. */
  focusFirst(): boolean {
    const first = this.cards.values()[0];
    if (!first) {
      return false;
    }
    (first.kind === 'call' ? first.card.landing : first.card.allow).focus();
    return true;
  }

  /** Allow all / Deny all for the cards shown; Allow all is off, with the host's reason, while any card says so. */
  private renderBatch(): void {
    const count = this.cards.values().length;
    if (count < 2) {
      this.batch.replaceChildren();
      this.batch.hidden = true;
      delete this.batch.dataset['shown'];
      return;
    }
    this.batch.hidden = false;
    const blocked = this.pending.find((call) => call.off?.['allow-all'] !== undefined)?.off?.['allow-all'];
    // Built again only when what it shows changed: a push that changed nothing here keeps the focus on its buttons.
    const shown = `${count}\n${blocked ?? ''}`;
    if (this.batch.dataset['shown'] === shown) {
      return;
    }
    this.batch.dataset['shown'] = shown;
    // The calls shown when the person clicks: others that arrive later are left waiting.
    const calls = (): { callId: string; argsHash: string }[] => this.pending.map(({ callId, argsHash }) => ({ callId, argsHash }));
    const allowAll = button({ 'data-action': 'allow-all', ...(blocked !== undefined ? { disabled: true, title: blocked } : {}) }, `Allow all ${count}`);
    allowAll.addEventListener('click', () => {
      if (blocked === undefined) {
        this.decidedHere = true;
        this.options.channel.send({ type: 'decideAll', action: 'allow-all', calls: calls() });
      }
    });
    const denyAll = button({ secondary: true, 'data-action': 'deny-all' }, 'Deny all');
    denyAll.addEventListener('click', () => {
      this.decidedHere = true;
      this.options.channel.send({ type: 'decideAll', action: 'deny-all', calls: calls() });
    });
    this.batch.replaceChildren(h('span', {}, `${count} waiting`), h('span', { class: 'spacer' }), allowAll, denyAll);
  }
}
