import * as assert from 'node:assert/strict';
import { cleanOutput, OutputBuffer, visibleControls } from '../../src/core/terminal/output';

describe('cleanOutput: what a terminal would show, as plain text', () => {
  const rows: [title: string, raw: string, clean: string][] = [
    ['plain text is unchanged, trailing blanks included', 'a  \nb\n', 'a  \nb\n'],
    ['colours (SGR) are removed', '\u001b[1;31merror\u001b[0m: x\n', 'error: x\n'],
    ['a window title (OSC, BEL or ST) is removed', '\u001b]0;title\u0007a\u001b]2;t\u001b\\b\n', 'ab\n'],
    ['a carriage-return progress line keeps its last state', '10%\r50%\r100%\n', '100%\n'],
    ['later text overwrites from the line start, what it does not cover stays', 'downloading\rdone\n', 'doneloading\n'],
    ['erase to end of line after \\r clears the rest', 'downloading\r\u001b[Kdone\n', 'done\n'],
    ['erase the whole line', 'abc\u001b[2K\rx\n', 'x\n'],
    ['\\r\\n is one line break', 'a\r\nb\r\n', 'a\nb\n'],
    ['backspace steps back one column', 'ab\bc\n', 'ac\n'],
    ['other control characters are dropped, tab is kept', 'a\u0007\u0000b\tc\n', 'ab\tc\n'],
    ['cursor up on the first line stays there; cursor forward leaves blanks', '\u001b[2Aup\u001b[3Cright\n', 'up   right\n'],
    ['a one-line spinner (ora: column 1, erase line) keeps its last frame', '\u001b[?25l⠋ Installing\u001b[G\u001b[2K⠙ Installing\u001b[1G\u001b[2K✔ Installed\n\u001b[?25h', '✔ Installed\n'],
    ['a backspace spinner leaves no glyph', 'work ⠋\b⠙\b⠹\b \bdone\n', 'work done\n'],
    ['a spinner over several lines (log-update: erase, cursor up) keeps its last frame', 'a ⠋\nb ⠋\n\u001b[2K\u001b[1A\u001b[2K\u001b[1A\u001b[2K\u001b[Ga ✔\nb ✔\n', 'a ✔\nb ✔\n'],
    ['cursor back overwrites in place', 'abc\u001b[2Dx\n', 'axc\n'],
    ['cursor to the previous line start (ESC[F) and erase below (ESC[J)', 'one\ntwo\nthree\u001b[1F\u001b[Jdone\n', 'one\ndone\n'],
    ['a spinner line before ordinary output is replaced, the output kept', '⠋ build\r\u001b[Kbuilt\nok\n', 'built\nok\n'],
    ['no trailing newline', 'x\ry', 'y'],
  ];
  for (const [title, raw, clean] of rows) {
    it(title, () => {
      assert.equal(cleanOutput(raw), clean);
    });
  }
});

describe('OutputBuffer', () => {
  it('keeps everything under the cap', () => {
    const buffer = new OutputBuffer(10);
    buffer.append('abc');
    buffer.append('def');
    assert.equal(buffer.render(), 'abcdef');
    assert.equal(buffer.droppedChars, 0);
  });

  it('over the cap keeps the head and the tail and counts what was left out, across chunks', () => {
    const buffer = new OutputBuffer(10);
    for (const chunk of ['12345', '67890', 'abcde', 'fghij']) {
      buffer.append(chunk);
    }
    assert.equal(buffer.droppedChars, 10);
    assert.equal(buffer.render(), '12345\n[… 10 characters of output left out …]\nfghij');
  });

  it('cleans the head and the tail separately', () => {
    const buffer = new OutputBuffer(10);
    buffer.append('a\rb\u001b[1mcdef');
    buffer.append('xxxxxxxxxx1\r2345');
    assert.equal(buffer.render(cleanOutput), 'b\n[… 17 characters of output left out …]\n2345');
  });
});

describe('visibleControls: a command as it should be shown', () => {
  const rows: [title: string, text: string, shown: string][] = [
    ['ordinary text, tab and newline stay', 'echo a\tb\necho c', 'echo a\tb\necho c'],
    ['carriage return', 'ls\rtouch p', 'ls\\rtouch p'],
    ['escape', '\u001b[2Jx', '\\e[2Jx'],
    ['Ctrl-U, DEL, Ctrl-A', 'a\u0015b\u007fc\u0001', 'a\\x15b\\x7fc\\x01'],
    ['a C1 control', 'a\u009bb', 'a\\x9bb'],
    ['bidirectional overrides and zero-width characters', 'a\u202eb\u200bc\u2066d\ufeff', 'a\\u202eb\\u200bc\\u2066d\\ufeff'],
  ];
  for (const [title, text, shown] of rows) {
    it(title, () => {
      assert.equal(visibleControls(text), shown);
    });
  }

  it('marks each escape so it cannot be mistaken for a typed backslash', () => {
    assert.equal(visibleControls('a\\rb\rc', (escape) => `[${escape}]`), 'a\\rb[\\r]c');
  });
});
