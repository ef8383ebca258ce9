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
 * What a terminal would show of `text`, as plain lines: escape sequences dropped (colours, cursor moves, titles), and
 * within each line `\r` returns to its start so later text overwrites earlier text, `\b` steps back one column, and
 * "erase in line" (`ESC[K`, `ESC[1K`, `ESC[2K`) erases. A progress bar drawn with `\r` collapses to its last state.
 * `\r\n` is a line break; other control characters (except tab) are dropped.
 */
export function cleanOutput(text: string): string {
  const lines: string[] = [];
  let cells: string[] = [];
  let column = 0;
  // Only a line that was drawn over loses its trailing blanks (left by erasing); others are kept as printed.
  let redrawn = false;
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
      // eslint-disable-next-line no-control-regex -- matching an escape sequence.
      const erase = /^\u001b\[([012]?)K$/.exec(sequence);
      if (erase) {
        redrawn = true;
        const mode = erase[1] ?? '';
        if (mode === '' || mode === '0') {
          cells = cells.slice(0, column);
        } else if (mode === '1') {
          cells = cells.map((cell, at) => (at <= column ? ' ' : cell));
        } else {
          cells = cells.map(() => ' ');
        }
      }
      index += sequence.length;
      continue;
    }
    index += 1;
    if (char === '\n') {
      lines.push(finishLine(cells, redrawn));
      cells = [];
      column = 0;
      redrawn = false;
    } else if (char === '\r') {
      column = 0;
      redrawn = true;
    } else if (char === '\b') {
      column = Math.max(0, column - 1);
      redrawn = true;
    } else if (char === '\t' || !isControl(char)) {
      while (cells.length < column) {
        cells.push(' ');
      }
      cells[column] = char;
      column += 1;
    }
  }
  lines.push(finishLine(cells, redrawn));
  return lines.join('\n');
}

function finishLine(cells: string[], redrawn: boolean): string {
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
