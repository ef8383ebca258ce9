/**
 * The page's elements: made with attributes and children (text always as text, never parsed as markup), the theme's
 * buttons and codicons, the card brought into view, and the root's connected state.
 */

/** Creates an element with attributes and children; text is always set as text, never parsed as markup. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes?: Record<string, string | boolean>,
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K];
export function h(tag: string, attributes?: Record<string, string | boolean>, ...children: (Node | string)[]): HTMLElement;
export function h(
  tag: string,
  attributes: Record<string, string | boolean> = {},
  ...children: (Node | string)[]
): HTMLElement {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === true) {
      element.setAttribute(name, '');
    } else if (value !== false) {
      element.setAttribute(name, value);
    }
  }
  for (const child of children) {
    element.append(typeof child === 'string' ? document.createTextNode(child) : child);
  }
  return element;
}

/**
 * A button: a native `<button>` in the theme's button colours (`.button` and `.button.secondary` in media/webview.css).
 * Not `vscode-button`: each of those is a lit element with its own shadow root, rendered in a microtask and styled on
 * its own, and a card's buttons were the largest part of its first frame after the host's post (npm run bench: a
 * one-line card 38 -> 30 ms). A native button also brings the platform's own keyboard, disabled and accessibility
 * behaviour. `secondary: true` gives the secondary look.
 */
export function button(attributes: Record<string, string | boolean> = {}, ...children: (Node | string)[]): HTMLButtonElement {
  const { secondary, class: extra, ...rest } = attributes;
  const classes = ['button', secondary === true ? 'secondary' : '', typeof extra === 'string' ? extra : ''].filter(Boolean).join(' ');
  return h('button', { type: 'button', class: classes, ...rest }, ...children);
}

/**
 * A codicon, drawn by the page's own codicon stylesheet. Not `vscode-icon`: each of those is a shadow root that links
 * the stylesheet again, and a panel of 200 waiting calls (about ten icons each) spent seconds loading and styling them.
 */
export function icon(name: string, options: { spin?: boolean } = {}): HTMLElement {
  return h('span', {
    class: `codicon codicon-${name}${options.spin === true ? ' codicon-modifier-spin' : ''}`,
    'aria-hidden': 'true',
  });
}

/** The card of a waiting call in this view (its own, or its group's), brought into view with the focus. */
export function focusCard(callId: string): boolean {
  const member = document.querySelector<HTMLElement>(`[data-call-id="${CSS.escape(callId)}"]`);
  const card = member?.closest<HTMLElement>('article') ?? undefined;
  if (!card) {
    return false;
  }
  card.scrollIntoView({ block: 'nearest' });
  card.focus();
  return true;
}

/** Marks the root as connected once the host answered `ready`: tests and screen readers both rely on it. */
export function markConnected(root: HTMLElement, count: number): void {
  root.dataset['state'] = 'connected';
  root.dataset['updates'] = String(count);
  root.setAttribute('aria-busy', 'false');
}

export function requireElement(id: string): HTMLElement {
  const element = document.getElementById(id);
  if (!element) {
    throw new Error(`toolgate: #${id} is missing from the page`);
  }
  return element;
}
