import * as assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { ChatDriver, sentToolResult } from './harness/chat';
import { useSession } from './harness/session';

const latin1 = (text: string): Buffer => Buffer.from(text, 'latin1');
const utf16leWithBom = (text: string): Buffer => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52, 0xff, 0x00, 0x80]);

describe('files in any encoding stay byte-exact outside the change, in the real VS Code', function () {
  this.timeout(180_000);
  const session = useSession({ model: true, control: true });
  const { model, control, file, panel } = session;

  it('an agent edit of a Latin-1 file open in an editor changes only the edited bytes, and Undo Task restores every byte', async () => {
    const original = latin1('caf\u00e9 na\u00efve\nold line\nd\u00e9j\u00e0 vu \u00a9 \u00bd\r\n');
    writeFileSync(file('legacy.txt'), original);
    // The editor opens it as UTF-8 (its default): its view of the file is lossy, and must not be what is written.
    const opened = await control.call<{ text: string }>('/documentText', { path: 'legacy.txt' });
    assert.match(opened.text, /\ufffd/, 'VS Code reads the Latin-1 bytes as UTF-8');
    model.fake.script([
      { toolCalls: [{ id: 'e1', name: 'edit_file', arguments: JSON.stringify({ path: 'legacy.txt', edits: [{ old: 'old line', new: 'new line, \u00e9t\u00e9' }] }) }] },
      { text: 'Edited.' },
    ]);
    const chat = new ChatDriver(session.workbench);
    await chat.say('Edit legacy.txt');
    const card = await panel().waitForCall('edit_file', 'legacy.txt');
    assert.match(await card.innerText(), /Windows-1252: every byte outside the change stays as it is/);
    assert.match(await card.locator('[data-field="diff"]').innerText(), /d\u00e9j\u00e0 vu|new line, \u00e9t\u00e9/);
    await panel().act(card, 'allow-once');
    await (await chat.frame()).locator('[data-entry="assistant"]', { hasText: 'Edited.' }).waitFor({ timeout: 60_000 });
    await chat.idle();
    assert.deepEqual(readFileSync(file('legacy.txt')), latin1('caf\u00e9 na\u00efve\nnew line, \u00e9t\u00e9\nd\u00e9j\u00e0 vu \u00a9 \u00bd\r\n'));
    assert.match(sentToolResult(model.fake, 1, 'e1'), /^Updated legacy\.txt/);

    const undone = await control.call<{ kind: string }>('/command', { command: 'toolgate.undoTask' });
    assert.equal(undone.kind, 'undone', JSON.stringify(undone));
    assert.deepEqual(readFileSync(file('legacy.txt')), original, 'the undo writes the Latin-1 bytes back exactly');
  });

  it('a character Latin-1 cannot hold is refused before anyone is asked, and the file is untouched', async () => {
    const before = readFileSync(file('legacy.txt'));
    const outcome = await control.invoke('edit_file', { path: 'legacy.txt', edits: [{ old: 'vu', new: 'vu \u2603' }] });
    assert.equal(outcome.ok, false);
    assert.match(outcome.output, /Windows-1252 cannot hold "\u2603" \(U\+2603\) on line 3/);
    assert.deepEqual(readFileSync(file('legacy.txt')), before);
  });

  it('a write over a UTF-16 file is one Allow once, in UTF-16 with its BOM and line endings', async () => {
    writeFileSync(file('wide.txt'), utf16leWithBom('first\r\nsecond\r\n'));
    const result = control.invoke('write_file', { path: 'wide.txt', content: 'first\nsecond, changed \u00fc\n' });
    const card = await panel().waitForCall('write_file', 'wide.txt');
    assert.match(await card.innerText(), /UTF-16 LE with BOM/);
    await panel().act(card, 'allow-once');
    const outcome = await result;
    assert.equal(outcome.ok, true, outcome.output);
    assert.match(outcome.output, /^Updated wide\.txt/);
    assert.deepEqual(readFileSync(file('wide.txt')), utf16leWithBom('first\r\nsecond, changed \u00fc\r\n'));
  });

  it('a binary file is replaced whole when allowed, its card showing sizes and hashes; edit_file and read_file refuse it', async () => {
    writeFileSync(file('logo.png'), png);
    const result = control.invoke('write_file', { path: 'logo.png', content: 'not an image any more\n' });
    const card = await panel().waitForCall('write_file', 'logo.png');
    assert.match(await card.innerText(), /Replaces a binary file whole: 19 bytes \(sha256 [0-9a-f]{12}…\) become 22 bytes of UTF-8 text/);
    await panel().act(card, 'allow-once');
    const outcome = await result;
    assert.equal(outcome.ok, true, outcome.output);
    assert.equal(readFileSync(file('logo.png'), 'utf8'), 'not an image any more\n');

    writeFileSync(file('icon.png'), png);
    const edit = await control.invoke('edit_file', { path: 'icon.png', edits: [{ old: 'PNG', new: 'GIF' }] });
    assert.equal(edit.ok, false);
    assert.match(edit.output, /icon\.png is a binary file \(19 bytes\), which edit_file cannot edit; write_file replaces it whole/);
    const read = await control.invoke('read_file', { path: 'icon.png' });
    assert.equal(read.ok, false);
    assert.match(read.output, /icon\.png is binary \(19 bytes\), not text/);
    assert.deepEqual(readFileSync(file('icon.png')), png);
  });
});
