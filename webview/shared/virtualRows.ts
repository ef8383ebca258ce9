/**
 * The rows of one hunk: all of them, or (virtual) a window of them painted on demand, the block keeping the height of
 * all its rows so the scroll bar and the hunks below stay where they would be.
 */
import { h } from './elements';

export const rowHeight = 18;
/** Rows painted beyond the view on each side, so a short scroll draws nothing again. */
const overscan = 20;

export interface RowsBlock {
  element: HTMLElement;
  /** The rows' height in pixels. */
  height: number;
  /**
   * Virtual only: makes sure the rows that fall between `top` and `bottom` (pixels from the top of this block's rows),
   * and a margin, are painted; draws nothing when they already are.
   */
  paint?: (top: number, bottom: number) => void;
}

export function rowsBlock<T>(rows: T[], render: (row: T) => HTMLElement, virtual: boolean): RowsBlock {
  const element = h('div', { class: 'hunk-rows' });
  const height = rows.length * rowHeight;
  if (!virtual) {
    element.append(...rows.map(render));
    return { element, height };
  }
  element.classList.add('virtual');
  element.style.height = `${height}px`;
  const windowEl = h('div', { class: 'diff-window' });
  element.append(windowEl);
  let first = -1;
  let last = -1;
  const row = (pixels: number, round: (value: number) => number, by: number): number =>
    Math.min(rows.length, Math.max(0, round(pixels / rowHeight) + by));
  return {
    element,
    height,
    paint(top, bottom) {
      // The rows in view and half the overscan must be there; they are painted with the whole overscan, so a short
      // scroll, or the first frame's estimated offsets being a few pixels out, draws nothing again.
      const needFrom = row(top, Math.floor, -overscan / 2);
      const needTo = row(bottom, Math.ceil, overscan / 2);
      if (needFrom >= needTo ? first === last : first <= needFrom && needTo <= last) {
        return;
      }
      const start = row(top, Math.floor, -overscan);
      const end = Math.max(start, row(bottom, Math.ceil, overscan));
      if (start === first && end === last) {
        return;
      }
      first = start;
      last = end;
      windowEl.style.transform = `translateY(${start * rowHeight}px)`;
      windowEl.replaceChildren(...rows.slice(start, end).map(render));
    },
  };
}
