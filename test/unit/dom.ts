/**
 * A DOM for the webview's components in plain Node: happy-dom's window, its globals installed once for the test file
 * that imports this (the components read `document`, `HTMLElement`… when they run, as in the webview).
 */
import { Window } from 'happy-dom';

const window = new Window({ url: 'https://toolgate.test/' });
const globals = ['document', 'Node', 'HTMLElement', 'HTMLTextAreaElement', 'HTMLInputElement', 'HTMLSelectElement', 'Event', 'KeyboardEvent', 'MouseEvent', 'CSS', 'requestAnimationFrame', 'cancelAnimationFrame', 'ResizeObserver'] as const;
for (const name of globals) {
  Object.defineProperty(globalThis, name, { value: (window as unknown as Record<string, unknown>)[name], configurable: true, writable: true });
}

export const dom = {
  document: window.document as unknown as Document,
  /** Puts an element in the page (focus and `contains(activeElement)` need it there). */
  attach(element: HTMLElement): void {
    window.document.body.append(element as unknown as Parameters<typeof window.document.body.append>[0]);
  },
  clear(): void {
    window.document.body.replaceChildren();
  },
};
