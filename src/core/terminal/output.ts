/**
 * Command output as the model gets it: capped (head and tail kept, the middle counted), escape sequences removed and
 * carriage-return progress lines reduced to what a terminal would show last. And command text as a terminal shows it:
 * control characters made visible, so what the person reads is what runs.
 */

export const maxOutputChars = 30_000;

/** Keeps the head and the tail of long output, and says how much was left out. */
export class OutputBuffer {
  private head = '';
  private tail = '';
  private dropped = 0;

  constructor(private readonly maxChars = maxOutputChars) {}

  append(chunk: string): void {
    const half = Math.floor(this.maxChars / 2);
    if (this.head.length < half) {
      const take = chunk.slice(0, half - this.head.length);
      this.head += take;
      chunk = chunk.slice(take.length);
    }
    this.tail += chunk;
    if (this.tail.length > half) {
      this.dropped += this.tail.length - half;
      this.tail = this.tail.slice(this.tail.length - half);
    }
  }

  /** How many characters were left out of the middle. */
  get droppedChars(): number {
    return this.dropped;
  }

  /** The kept text, each part passed through `clean` (head and tail separately), with a note where the cut is. */
  render(clean: (text: string) => string = (text) => text): string {
    return this.dropped > 0
      ? `${clean(this.head)}\n[… ${this.dropped} characters of output left out …]\n${clean(this.tail)}`
      : clean(this.head + this.tail);
  }
}

// eslint-disable-next-line no-control-regex -- terminal output carries escape sequences by design.
const escapeSequence = /\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[P^_X][^\u001b]*(?:\u001b\\)?|\u001b\[[0-?]*[ -/]*[@-~]|\u001b[ -/]*[0-~]/y;

/**
 * What a terminal would show of `text`, as plain lines: escape sequences dropped (colours, titles, cursor shape), and
 * text drawn over as a terminal draws it: `\r` returns to the line start so later text overwrites earlier text, `\b`
 * and "cursor back" (`ESC[nD`) step back, `ESC[nG` goes to a column, "cursor up" (`ESC[nA`, `ESC[nF`) returns to an
 * earlier line, and "erase in line" (`ESC[K`, `ESC[1K`, `ESC[2K`) and "erase below" (`ESC[J`) erase. A progress bar
 * or a spinner (one line or several, as `ora` and `log-update` draw them) collapses to its last state.
 * `\r\n` is a line break; other control characters (except tab) are dropped.
 */
export function cleanOutput(text: string): string {
  const rows: Row[] = [{ cells: [], redrawn: false }];
  let row = 0;
  let column = 0;
  const current = (): Row => rows[row] ?? { cells: [], redrawn: false };
  const goTo = (target: number): void => {
    row = Math.max(0, Math.min(target, rows.length - 1));
    current().redrawn = true;
  };
  let index = 0;
  while (index < text.length) {
    const char = text[index] ?? '';
    if (char === '\u001b') {
      escapeSequence.lastIndex = index;
      const match = escapeSequence.exec(text);
      if (!match) {
        index += 1;
        continue;
      }
      const sequence = match[0];
      index += sequence.length;
      // eslint-disable-next-line no-control-regex -- matching a control sequence.
      const csi = /^\u001b\[([0-9;]*)([A-GJK])$/.exec(sequence);
      if (!csi) {
        continue;
      }
      const parameter = csi[1] ?? '';
      const count = Math.max(1, Number.parseInt(parameter, 10) || 1);
      const line = current();
      line.redrawn = true;
      switch (csi[2]) {
        case 'K':
          if (parameter === '' || parameter === '0') {
            line.cells = line.cells.slice(0, column);
          } else if (parameter === '1') {
            line.cells = line.cells.map((cell, at) => (at <= column ? ' ' : cell));
          } else {
            line.cells = line.cells.map(() => ' ');
          }
          break;
        case 'J':
          // Erase below (the default, 0) only: clearing the whole screen would hide what was printed before.
          if (parameter === '' || parameter === '0') {
            line.cells = line.cells.slice(0, column);
            rows.length = row + 1;
          }
          break;
        case 'A':
          goTo(row - count);
          break;
        case 'F':
          goTo(row - count);
          column = 0;
          break;
        case 'B':
          goTo(row + count);
          break;
        case 'E':
          goTo(row + count);
          column = 0;
          break;
        case 'C':
          column += count;
          break;
        case 'D':
          column = Math.max(0, column - count);
          break;
        case 'G':
          column = Math.max(0, (Number.parseInt(parameter, 10) || 1) - 1);
          break;
      }
      continue;
    }
    index += 1;
    if (char === '\n') {
      row += 1;
      if (row === rows.length) {
        rows.push({ cells: [], redrawn: false });
      }
      column = 0;
    } else if (char === '\r') {
      column = 0;
      current().redrawn = true;
    } else if (char === '\b') {
      column = Math.max(0, column - 1);
      current().redrawn = true;
    } else if (char === '\t' || !isControl(char)) {
      const cells = current().cells;
      while (cells.length < column) {
        cells.push(' ');
      }
      cells[column] = char;
      column += 1;
    }
  }
  return rows.map(finishLine).join('\n');
}

interface Row {
  cells: string[];
  /** Drawn over (or erased): it loses its trailing blanks, left by erasing; other lines are kept as printed. */
  redrawn: boolean;
}

function finishLine({ cells, redrawn }: Row): string {
  const line = cells.join('');
  return redrawn ? line.trimEnd() : line;
}

function isControl(char: string): boolean {
  const code = char.charCodeAt(0);
  return code < 0x20 || code === 0x7f || (code >= 0x80 && code < 0xa0);
}

/** Characters that reorder or hide text on screen: bidirectional controls, zero-width characters, the BOM. */
function isInvisibleFormat(char: string): boolean {
  const code = char.charCodeAt(0);
  return (code >= 0x200b && code <= 0x200f) || (code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069) || code === 0xfeff;
}

/**
 * `text` with every control character other than tab and newline, and every invisible formatting character, written
 * visibly (`\r`, `\e`, `\x15`, `\x7f`, `\u202e`), so a terminal shows the characters of a command instead of obeying
 * or hiding them. `mark` wraps each such escape (a terminal shows it in reverse video, so it cannot be mistaken for a
 * backslash typed in the command).
 */
export function visibleControls(text: string, mark: (escape: string) => string = (escape) => escape): string {
  let out = '';
  for (const char of text) {
    const code = char.charCodeAt(0);
    if (char === '\r') {
      out += mark('\\r');
    } else if (char === '\u001b') {
      out += mark('\\e');
    } else if (char !== '\t' && char !== '\n' && isControl(char)) {
      out += mark(`\\x${code.toString(16).padStart(2, '0')}`);
    } else if (isInvisibleFormat(char)) {
      out += mark(`\\u${code.toString(16).padStart(4, '0')}`);
    } else {
      out += char;
    }
  }
  return out;
}
