/**
 * Staged commands in the real VS Code: a command's writes are judged as writes when it ends. What a rule allows lands,
 * the rest is reviewed on the same card as an edit (hunk by hunk), Deny leaves the workspace as it was, a file the
 * person changed meanwhile is never replaced unseen, and Undo Agent's Task reverts what a command landed.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ChatDriver, sentToolResult } from './harness/chat';
import { until } from './harness/until';
import { ApprovalsPanelDriver } from './harness/panel';
import { useSession } from './harness/session';
import type { Locator } from 'playwright-core';

/** 40 lines; changing lines 5 and 35 makes two hunks. */
const base = Array.from({ length: 40 }, (_, i) => `export const line${i + 1} = ${i + 1};\n`).join('');

/** Every file under `root` (but `.vscode`, which the harness writes) with the sha256 of its bytes and its mode. */
function tree(root: string): Record<string, string> {
  const found: Record<string, string> = {};
  const walk = (relative: string): void => {
    for (const name of readdirSync(path.join(root, relative))) {
      const rel = relative === '' ? name : `${relative}/${name}`;
      if (rel === '.vscode') {
        continue;
      }
      const stat = lstatSync(path.join(root, rel));
      if (stat.isDirectory()) {
        found[rel] = 'dir';
        walk(rel);
      } else {
        found[rel] = `${(stat.mode & 0o777).toString(8)} ${createHash('sha256').update(readFileSync(path.join(root, rel))).digest('hex')}`;
      }
    }
  };
  walk('');
  return found;
}

describe('staged commands in the real VS Code: a command\'s writes are reviewed before they land', function () {
  this.timeout(180_000);
  const cache = mkdtempSync(path.join(os.tmpdir(), 'toolgate-e2e-cache-'));
  const session = useSession({
    model: true,
    control: true,
    env: { XDG_CACHE_HOME: cache },
    files: { 'allowed/a.txt': 'a\n', 'src/three.ts': base, 'src/keep.txt': 'keep\n' },
    // CodeLens is off in diff editors by default: on, each hunk's choice is a lens to click.
    settings: { 'toolgate.autoApprove.edits': { 'allowed/**': true }, 'diffEditor.codeLens': true },
  });
  const { model, control, file, panel } = session;
  after(() => rmSync(cache, { recursive: true, force: true }));
  /** The person allows the command itself first: what it writes is judged when it ends. */
  const allowCommand = async (): Promise<void> => panel().act(await panel().waitForCall('run_in_terminal', undefined, 60_000), 'allow-once');

  it('a command writes an allowed file and asking ones: the first lands, the rest is one card; a file rejected whole and one hunk rejected (in the diff editor) land exactly the rest', async () => {
    const command = "echo A > allowed/a.txt && sed -i -e 's/= 5;/= 500;/' -e 's/= 35;/= 3500;/' src/three.ts && echo new > src/new.txt";
    const result = control.invoke('run_in_terminal', { command });
    await allowCommand();
    const card = await panel().waitForGroup('changed 3 files', 60_000);
    assert.match(await card.locator('[data-field="group-title"]').innerText(), /echo A > allowed\/a\.txt .* changed 3 files/);
    assert.match(await card.locator('[data-field="group-intro"]').innerText(), /^2 files wait for you; the other 1 change landed/);
    // The allowed file is in the workspace while the others wait; the asking ones are not.
    await until(() => readFileSync(file('allowed/a.txt'), 'utf8') === 'A\n', 'the allowed file to land');
    assert.equal(readFileSync(file('src/three.ts'), 'utf8'), base);
    assert.equal(existsSync(file('src/new.txt')), false);
    const three = card.locator('section.group-file[data-path="src/three.ts"]');
    const fresh = card.locator('section.group-file[data-path="src/new.txt"]');
    assert.equal(await three.locator('[data-hunk-index]').count(), 2);
    await fresh.locator('[data-action="reject-file"]').click();
    await fresh.locator('[data-field="file-state"]', { hasText: 'rejected: it stays as it is' }).waitFor();
    await card.locator('[data-field="group-summary"]', { hasText: '1 of 2 files accepted (2 of 3 hunks)' }).waitFor();
    await session.workbench.screenshot('staged-command-review');

    // The first hunk rejected in VS Code's diff editor, with a reason: the card shows it; Allow there lands the group.
    await three.locator('[data-action="open-diff"]').click();
    const page = session.workbench.page;
    const tab = page.locator('.tabs-container .tab', { hasText: 'proposed by the agent' });
    await tab.waitFor();
    const lens = (text: string): Locator => page.locator('.monaco-diff-editor .editor.modified .codelens-decoration', { hasText: text }).first();
    await lens('Hunk 1 of 2: accepted').locator('a', { hasText: 'Reject hunk' }).click();
    await session.workbench.answerInputBox('keep 5');
    await three.locator('[data-hunk-index="0"][data-state="rejected"]').waitFor();
    await card.locator('[data-field="group-summary"]', { hasText: '1 of 2 files accepted (1 of 3 hunks)' }).waitFor();
    await page.locator('.editor-actions .action-label[aria-label^="Allow the Proposed Change"]').first().click();
    const outcome = await result;
    assert.equal(outcome.ok, true, outcome.output);
    assert.match(outcome.output, /- landed: allowed\/a\.txt\n/);
    assert.match(outcome.output, /- landed in part: src\/three\.ts \(1 of 2 hunks; rejected hunk 1: "keep 5"\)/);
    assert.match(outcome.output, /- NOT landed \(you denied it: "rejected in the review"\): src\/new\.txt/);
    assert.equal(readFileSync(file('src/three.ts'), 'utf8'), base.replace('= 35;', '= 3500;'), 'only the accepted hunk');
    assert.equal(existsSync(file('src/new.txt')), false, 'the file rejected whole');
    await tab.waitFor({ state: 'detached', timeout: 10_000 });
  });

  it("the agent's chat shows the same one card: a file rejected there is rejected in the panel too, Allow there lands the rest, and the model is told", async () => {
    const command = 'echo one > src/chat-a.txt && echo two > src/chat-b.txt';
    model.fake.script([{ toolCalls: [{ id: 'g1', name: 'run_in_terminal', arguments: JSON.stringify({ command }) }] }, { text: 'Done.' }]);
    const chat = new ChatDriver(session.workbench);
    await chat.say('Write two files');
    await allowCommand();
    const frame = await chat.frame();
    const card = frame.locator('article.inline-call.call-group', { hasText: 'changed 2 files' });
    await card.waitFor({ timeout: 60_000 });
    await card.locator('section.group-file[data-path="src/chat-b.txt"] [data-action="reject-file"]').click();
    await card.locator('[data-field="group-summary"]', { hasText: '1 of 2 files accepted' }).waitFor();
    const inPanel = await panel().waitForGroup('changed 2 files');
    await inPanel.locator('section.group-file[data-path="src/chat-b.txt"][data-state="rejected"]').waitFor();
    await session.workbench.screenshot('staged-command-chat');
    const page = session.workbench.page;
    await session.workbench.setColorTheme('Dark Modern');
    await page.setViewportSize({ width: 900, height: 700 });
    await card.locator('[data-field="group-summary"]').scrollIntoViewIfNeeded();
    await session.workbench.screenshot('staged-command-chat-dark-900x700');
    await session.workbench.setColorTheme('Light Modern');
    await page.setViewportSize({ width: 1400, height: 900 });
    // With the keyboard: the card's Allow, focused, and Enter.
    await card.locator('[data-action="allow-once"]').focus();
    await page.keyboard.press('Enter');
    await frame.locator('[data-entry="assistant"]', { hasText: 'Done.' }).waitFor({ timeout: 60_000 });
    await chat.idle();
    const told = sentToolResult(model.fake, 1, 'g1');
    assert.match(told, /- landed: src\/chat-a\.txt\n/);
    assert.match(told, /- NOT landed \(you denied it: "rejected in the review"\): src\/chat-b\.txt/);
    assert.equal(readFileSync(file('src/chat-a.txt'), 'utf8'), 'one\n');
    assert.equal(existsSync(file('src/chat-b.txt')), false);
  });

  it("while a command still runs, the chat's Changes so far lists what it has staged and opens a file's diff; nothing lands, and Stop lands nothing", async () => {
    const stages = path.join(cache, 'toolgate-stages');
    const inStage = (name: string): boolean =>
      existsSync(stages) && readdirSync(stages, { recursive: true, encoding: 'utf8' }).some((entry) => entry.endsWith(`upper/src/${name}`));
    const command = 'echo so-far > src/sofar.txt && sleep 60';
    model.fake.script([{ toolCalls: [{ id: 's1', name: 'run_in_terminal', arguments: JSON.stringify({ command }) }] }, { text: 'Stopped.' }]);
    const chat = new ChatDriver(session.workbench);
    await chat.say('Start the watcher');
    await allowCommand();
    await until(() => inStage('sofar.txt'), 'the command to write its file in the stage', { timeoutMs: 60_000 });
    const frame = await chat.frame();
    await frame.locator('[data-entry="tool"][data-status="running"] [data-action="staged-so-far"]').click();
    const page = session.workbench.page;
    const picker = page.locator('.quick-input-widget');
    const row = picker.locator('.monaco-list-row', { hasText: 'src/sofar.txt' });
    await row.waitFor();
    assert.match(await picker.innerText(), /has changed 1 file so far \(staged, not in your workspace/);
    assert.match(await row.innerText(), /created/);
    await page.keyboard.press('Enter');
    await page.locator('.tabs-container .tab', { hasText: 'staged so far' }).waitFor();
    await page.locator('.monaco-diff-editor .editor.modified .view-line', { hasText: 'so-far' }).waitFor();
    assert.equal(existsSync(file('src/sofar.txt')), false, 'nothing lands while it runs');
    await session.workbench.screenshot('staged-so-far');
    await frame.locator('[data-action="stop"]').click();
    await chat.idle();
    assert.equal(existsSync(file('src/sofar.txt')), false, 'a stopped task lands nothing of what it staged');
  });

  it('Deny leaves the workspace byte for byte as it was, whatever the command created, changed or deleted', async () => {
    const before = tree(session.server.workspace);
    const result = control.invoke('run_in_terminal', { command: 'echo new > src/new.txt && echo more >> src/keep.txt && rm src/three.ts && chmod +x src/keep.txt && mkdir -p src/empty/inner' });
    await allowCommand();
    const card = await panel().waitForGroup('changed 3 files', 60_000);
    assert.equal(await card.locator('section.group-file').count(), 3);
    await card.locator('[data-action="deny"]').click();
    await card.locator('[data-field="reason"]').fill('not now');
    await card.locator('[data-action="deny"]').click();
    await card.waitFor({ state: 'detached' });
    const outcome = await result;
    assert.match(outcome.output, /NOT landed \(you denied it: "not now"\): src\/keep\.txt, src\/new\.txt, src\/three\.ts/);
    assert.deepEqual(tree(session.server.workspace), before);
  });

  it('a file the person saves while the command runs is not overwritten: it asks, though a rule allows it, and Deny keeps theirs', async () => {
    const stages = path.join(cache, 'toolgate-stages');
    // An earlier command's stage may still be going (it is removed after the model has its answer): wait for a new one.
    const earlier = new Set(existsSync(stages) ? readdirSync(stages) : []);
    // The command writes once the person's save is there to see (read through the stage, whose lower layer is the
    // workspace): a fixed sleep let a slow machine find the stage after the command had already landed.
    const command = 'for i in $(seq 600); do grep -qx mine allowed/a.txt && break; sleep 0.1; done; echo from-the-command > allowed/a.txt';
    const result = control.invoke('run_in_terminal', { command });
    await allowCommand();
    await until(() => existsSync(stages) && readdirSync(stages).some((name) => name.startsWith('stage-') && !earlier.has(name)), 'the command to start (its stage)', { timeoutMs: 60_000 });
    writeFileSync(file('allowed/a.txt'), 'mine\n');
    const card = await panel().waitForGroup('changed 1 file', 60_000);
    assert.match(await card.locator('section.group-file[data-path="allowed/a.txt"]').innerText(), /changed in the workspace while the command ran/);
    await card.locator('[data-action="deny"]').click();
    await card.locator('[data-action="deny"]').click();
    await card.waitFor({ state: 'detached' });
    const outcome = await result;
    assert.match(outcome.output, /NOT landed \(you denied it\): allowed\/a\.txt/);
    assert.equal(readFileSync(file('allowed/a.txt'), 'utf8'), 'mine\n');
  });
});

describe("undo after a staged command in the real VS Code: what it created, changed and deleted comes back byte for byte", function () {
  this.timeout(180_000);
  const session = useSession({
    model: true,
    control: true,
    files: { 'mod.txt': 'one\ntwo\n', 'del.txt': 'delete me\n', 'keep.txt': 'keep\n', 'latin1.txt': 'caf\u00e9\n' },
    settings: { 'toolgate.autoApprove.edits': { '**': true } },
  });
  const { model, control } = session;

  it('Undo Agent\'s Task restores the workspace exactly as it was before the command', async () => {
    // The harness wrote latin1.txt as UTF-8: make it one byte per character.
    writeFileSync(path.join(session.server.workspace, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    const before = tree(session.server.workspace);
    const command = "echo made > made.txt && echo three >> mod.txt && rm del.txt && printf 'caf\\351!\\n' > latin1.txt";
    model.fake.script([{ toolCalls: [{ id: 'c1', name: 'run_in_terminal', arguments: JSON.stringify({ command }) }] }, { text: 'Done.' }]);
    const chat = new ChatDriver(session.workbench);
    await chat.say('Run it');
    await new ApprovalsPanelDriver(session.workbench).act(await new ApprovalsPanelDriver(session.workbench).waitForCall('run_in_terminal', undefined, 60_000), 'allow-once');
    await (await chat.frame()).locator('[data-entry="assistant"]', { hasText: 'Done.' }).waitFor({ timeout: 60_000 });
    await chat.idle();
    assert.match(sentToolResult(model.fake, 1, 'c1'), /- landed: del\.txt, latin1\.txt, made\.txt, mod\.txt/);
    const root = session.server.workspace;
    assert.equal(readFileSync(path.join(root, 'made.txt'), 'utf8'), 'made\n');
    assert.equal(existsSync(path.join(root, 'del.txt')), false);
    assert.deepEqual([...readFileSync(path.join(root, 'latin1.txt'))], [0x63, 0x61, 0x66, 0xe9, 0x21, 0x0a]);

    const undone = await control.call<{ kind: string; text?: string }>('/command', { command: 'toolgate.undoTask' });
    assert.equal(undone.kind, 'undone', JSON.stringify(undone));
    assert.doesNotMatch(undone.text ?? '', /cannot be undone/);
    assert.deepEqual(tree(root), before);
  });
});

describe('undo after an unstaged command (staging off, as on macOS): what git can tell the before of comes back byte for byte', function () {
  this.timeout(180_000);
  const session = useSession({
    model: true,
    control: true,
    files: { 'mod.txt': 'one\ntwo\n', 'del.txt': 'delete me\n', 'keep.txt': 'keep\n' },
    machineSettings: { 'toolgate.sandbox.reviewCommandChanges': false },
  });
  const { model, control } = session;
  const git = (...args: string[]): void => {
    execFileSync('git', ['-c', 'user.email=t@example.invalid', '-c', 'user.name=t', ...args], { cwd: session.server.workspace, stdio: 'ignore' });
  };
  const withoutGit = (files: Record<string, string>): Record<string, string> =>
    Object.fromEntries(Object.entries(files).filter(([name]) => name !== '.git' && !name.startsWith('.git/')));

  it("Undo Agent's Task reverts the files it changed, created and deleted, and says nothing cannot be undone", async () => {
    git('init', '-q');
    git('add', '.');
    git('commit', '-q', '-m', 'base');
    const root = session.server.workspace;
    const before = withoutGit(tree(root));
    const command = 'echo made > made.txt && echo three >> mod.txt && rm del.txt';
    model.fake.script([{ toolCalls: [{ id: 'c1', name: 'run_in_terminal', arguments: JSON.stringify({ command }) }] }, { text: 'Done.' }]);
    const chat = new ChatDriver(session.workbench);
    await chat.say('Run it');
    const panel = new ApprovalsPanelDriver(session.workbench);
    const card = await panel.waitForCall('run_in_terminal', undefined, 60_000);
    // Nothing silent: the card the person allows says its changes land unreviewed, and why, and so does the status bar.
    const unreviewed = card.locator('[data-field="warning"]', { hasText: 'without review' });
    assert.equal(
      (await unreviewed.textContent())?.trim(),
      'Its changes will land in the workspace without review: toolgate.sandbox.reviewCommandChanges is off. Turn it on to review them.',
    );
    await session.workbench.page.locator('.part.statusbar', { hasText: 'Changes unreviewed' }).waitFor({ timeout: 10_000 });
    await session.workbench.screenshot('unstaged-command-card');
    await panel.act(card, 'allow-once');
    await (await chat.frame()).locator('[data-entry="assistant"]', { hasText: 'Done.' }).waitFor({ timeout: 60_000 });
    await chat.idle();
    // It wrote directly: the model is told so, and what git saw it change, and the files are there at once.
    assert.match(sentToolResult(model.fake, 1, 'c1'), /Its changes were not reviewed: they went straight to the workspace \(toolgate\.sandbox\.reviewCommandChanges is off\)\./);
    assert.match(sentToolResult(model.fake, 1, 'c1'), /What it changed in the workspace, as git saw it[^\n]*\n- del\.txt: deleted\n- made\.txt: created \(untracked\)\n- mod\.txt: modified/);
    assert.equal(readFileSync(path.join(root, 'mod.txt'), 'utf8'), 'one\ntwo\nthree\n');
    assert.equal(existsSync(path.join(root, 'del.txt')), false);

    const undone = await control.call<{ kind: string; text?: string }>('/command', { command: 'toolgate.undoTask' });
    assert.equal(undone.kind, 'undone', JSON.stringify(undone));
    assert.doesNotMatch(undone.text ?? '', /cannot be undone/);
    assert.deepEqual(withoutGit(tree(root)), before);
  });
});

// Issue 36's blocker: inside a parent repository that ignores the folder (npm start's demo in the clone's `.tmp/`, a
// home folder's repository with `*`), every file a command wrote counted as ignored and landed at once, unseen.
describe('a workspace inside a parent repository that ignores it: what a command writes still waits on its card', function () {
  this.timeout(180_000);
  const session = useSession({
    model: true,
    parentGitignore: '.tmp/\n',
    files: { 'CHANGELOG.md': '# Changes\n' },
  });
  const { model, file } = session;

  it('the written files wait on one group card and are absent until accepted; the model and the task\'s changes name them', async () => {
    assert.match(execFileSync('git', ['check-ignore', session.server.workspace], { cwd: path.dirname(path.dirname(session.server.workspace)), encoding: 'utf8' }), /\.tmp\/workspace/, 'the parent ignores the workspace');
    const command = "node -e \"const fs=require('fs');fs.writeFileSync('a.txt','a\\n');fs.mkdirSync('src',{recursive:true});fs.writeFileSync('src/b.ts','export const b = 1;\\n');fs.appendFileSync('CHANGELOG.md','- more\\n')\"";
    model.fake.script([{ toolCalls: [{ id: 'p1', name: 'run_in_terminal', arguments: JSON.stringify({ command }) }] }, { text: 'Done.' }]);
    const chat = new ChatDriver(session.workbench);
    await chat.say('Write three files');
    await new ApprovalsPanelDriver(session.workbench).act(await new ApprovalsPanelDriver(session.workbench).waitForCall('run_in_terminal', undefined, 60_000), 'allow-once');
    const frame = await chat.frame();
    const card = frame.locator('article.inline-call.call-group', { hasText: 'changed 3 files' });
    await card.waitFor({ timeout: 60_000 });
    assert.equal(existsSync(file('a.txt')), false, 'nothing landed while the card waits');
    assert.equal(existsSync(file('src/b.ts')), false);
    assert.equal(readFileSync(file('CHANGELOG.md'), 'utf8'), '# Changes\n');
    await session.workbench.screenshot('staged-inside-ignoring-parent');
    await card.locator('[data-action="allow-once"]').click();
    await frame.locator('[data-entry="assistant"]', { hasText: 'Done.' }).waitFor({ timeout: 60_000 });
    await chat.idle();
    assert.equal(readFileSync(file('a.txt'), 'utf8'), 'a\n');
    assert.equal(readFileSync(file('src/b.ts'), 'utf8'), 'export const b = 1;\n');
    assert.equal(readFileSync(file('CHANGELOG.md'), 'utf8'), '# Changes\n- more\n');
    const told = sentToolResult(model.fake, 1, 'p1');
    assert.match(told, /- landed: CHANGELOG\.md, a\.txt, src\/b\.ts\n?/);
    assert.doesNotMatch(told, /without review/);
    await frame.locator('[data-entry="changes"] .changes-title', { hasText: 'Changed 3 files' }).waitFor();
  });
});

describe("undo after a rule-allowed command whose file was accepted on its card: the file is gone, the ignored output it kept is named", function () {
  this.timeout(240_000);
  const gen = "const fs = require('fs'); fs.writeFileSync('notes.txt', 'generated notes\\n'); fs.mkdirSync('dist', { recursive: true }); fs.writeFileSync('dist/bundle.js', 'bundle();\\n');\n";
  const session = useSession({
    model: true,
    files: {
      '.gitignore': 'dist/\n',
      'package.json': JSON.stringify({ name: 'gen-demo', version: '1.0.0', private: true, scripts: { gen: 'node gen.js' } }, null, 2),
      'gen.js': gen,
    },
    settings: { 'toolgate.autoApprove.terminal': { 'npm run gen': true } },
  });
  const { model, file } = session;

  it('npm run gen: notes.txt accepted on the group card, dist/bundle.js landed unreviewed; Undo Task deletes notes.txt and names dist/bundle.js as kept', async () => {
    const git = (...args: string[]): string => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: session.server.workspace, encoding: 'utf8' });
    git('init', '-q');
    git('add', '.gitignore', 'package.json', 'gen.js');
    git('commit', '-q', '-m', 'base');
    model.fake.script([{ toolCalls: [{ id: 'g1', name: 'run_in_terminal', arguments: JSON.stringify({ command: 'npm run gen' }) }] }, { text: 'Generated.' }]);
    const chat = new ChatDriver(session.workbench);
    await chat.say('generate');
    const frame = await chat.frame();
    const card = frame.locator('article.inline-call.call-group', { hasText: 'notes.txt' });
    await card.waitFor({ timeout: 90_000 });
    await card.locator('[data-action="allow-once"]').click();
    await frame.locator('[data-entry="assistant"]', { hasText: 'Generated.' }).waitFor({ timeout: 60_000 });
    await chat.idle();
    assert.equal(readFileSync(file('notes.txt'), 'utf8'), 'generated notes\n');
    assert.equal(readFileSync(file('dist/bundle.js'), 'utf8'), 'bundle();\n');

    await session.workbench.runCommand("Toolgate: Undo Agent's Task");
    const notice = session.workbench.page.locator('.notifications-toasts .notification-toast', { hasText: 'Undid task' });
    await notice.waitFor({ timeout: 30_000 });
    const said = await notice.innerText();
    await until(() => !existsSync(file('notes.txt')), 'notes.txt to be deleted by the undo', { timeoutMs: 15_000 });
    assert.match(said, /kept dist\/bundle\.js: landed without review, not kept for undo/, `the notification names the kept ignored output: ${said}`);
    const note = frame.locator('[data-entry="notice"]', { hasText: /^Undid / });
    await note.waitFor({ timeout: 15_000 });
    assert.match(await note.innerText(), /dist\/bundle\.js: a git-ignored output of `npm run gen`, landed without review, not kept for undo/, 'the transcript names it too');
    assert.equal(readFileSync(file('dist/bundle.js'), 'utf8'), 'bundle();\n', 'the ignored output was not kept for undo, so it stays');
  });
});
