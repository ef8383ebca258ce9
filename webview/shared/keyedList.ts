/**
 * One long-lived child per key in a container, kept in the order of the items: a child whose key is gone is removed, a
 * new key gets a new child at its place, and a kept child is told of its item again. The waiting calls' cards and a
 * group's files are such lists: a card holds what the person is doing (a reason being typed, an edit, the focus), so
 * it must live exactly as long as its call waits.
 *
 * Why not lit-html's `repeat` (no longer bundled since the buttons are native: `button` in elements.ts): its children
 * are templates re-rendered from data, while each card here is a stateful component built once (its hunk review, its
 * edit box's timer, its listeners) whose element must never be re-created or moved; porting every card to templates to
 * reuse a keyed loop would buy nothing this 50-line helper does not do. The order of kept children never changes (calls
 * wait oldest first), so no node is ever moved: moving a focused node would blur it.
 */
export interface KeyedChild {
  readonly element: HTMLElement;
}

export interface KeyedRender {
  /** A child was added (the view may scroll to it). */
  added: boolean;
  /** A removed child held the keyboard focus (the view moves it on). */
  removedFocus: boolean;
}

export class KeyedList<Item, Child extends KeyedChild> {
  private readonly children = new Map<string, Child>();
  /** The children in the order of the last render. */
  private ordered: Child[] = [];

  constructor(
    private readonly container: HTMLElement,
    private readonly key: (item: Item) => string,
    private readonly create: (item: Item) => Child,
    private readonly update: (child: Child, item: Item) => void,
    /** Told when a child goes, after its element left the page. */
    private readonly removed: (child: Child) => void = () => undefined,
  ) {}

  render(items: readonly Item[]): KeyedRender {
    const keys = new Set(items.map(this.key));
    let removedFocus = false;
    for (const [key, child] of this.children) {
      if (!keys.has(key)) {
        removedFocus ||= child.element.contains(document.activeElement);
        child.element.remove();
        this.children.delete(key);
        this.removed(child);
      }
    }
    let added = false;
    let previous: HTMLElement | undefined;
    const ordered: Child[] = [];
    for (const item of items) {
      const key = this.key(item);
      let child = this.children.get(key);
      if (child) {
        this.update(child, item);
      } else {
        child = this.create(item);
        this.children.set(key, child);
        added = true;
        if (previous) {
          previous.after(child.element);
        } else {
          this.container.prepend(child.element);
        }
      }
      previous = child.element;
      ordered.push(child);
    }
    this.ordered = ordered;
    return { added, removedFocus };
  }

  /** The children in the order of the items. */
  values(): readonly Child[] {
    return this.ordered;
  }
}
