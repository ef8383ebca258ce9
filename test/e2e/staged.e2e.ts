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
import { ChatDriver, sentToolResult, useFakeModel, waitFor } from './harness/chat';
import { Control } from './harness/control';
import { ApprovalsPanelDriver } from './harness/panel';
import { useCodeServer } from './harness/session';

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
  const control = new Control();
  const cache = mkdtempSync(path.join(os.tmpdir(), 'toolgate-e2e-cache-'));
  const session = useCodeServer(() => ({
    env: { ...control.env, XDG_CACHE_HOME: cache },
    extraExtensions: [control.vsix],
    files: { 'allowed/a.txt': 'a\n', 'src/three.ts': base, 'src/keep.txt': 'keep\n' },
    settings: { 'toolgate.autoApprove.edits': { 'allowed/**': true } },
  }));
  after(() => rmSync(cache, { recursive: true, force: true }));
  const panel = (): ApprovalsPanelDriver => new ApprovalsPanelDriver(session.workbench);
  const file = (relative: string): string => path.join(session.server.workspace, relative);
  /** The person allows the command itself first: what it writes is judged when it ends. */
  const allowCommand = async (): Promise<void> => panel().act(await panel().waitForCall('run_in_terminal', undefined, 60_000), 'allow-once');

  it('a command writes an allowed file and an asking one: the first lands, the second is a card; one hunk accepted lands exactly that hunk', async () => {
    const command = "echo A > allowed/a.txt && sed -i -e 's/= 5;/= 500;/' -e 's/= 35;/= 3500;/' src/three.ts";
    const result = control.invoke('run_in_terminal', { command });
    await allowCommand();
    const card = await panel().waitForCall('write_file', 'src/three.ts', 60_000);
    assert.match(await card.innerText(), /Written by the command `echo A > allowed\/a\.txt/);
    // The allowed file is in the workspace while the other waits; the asking one is not.
    await waitFor(() => readFileSync(file('allowed/a.txt'), 'utf8') === 'A\n', 'the allowed file to land');
    assert.equal(readFileSync(file('src/three.ts'), 'utf8'), base);
    await session.workbench.screenshot('staged-command-review');

    assert.equal(await card.locator('[data-hunk-index]').count(), 2);
    await card.locator('[data-hunk-index="1"] [data-action="reject-hunk"]').click();
    await card.locator('[data-field="hunk-summary"]', { hasText: '1 of 2 hunks accepted' }).waitFor();
    await panel().act(card, 'allow-once');
    const outcome = await result;
    assert.equal(outcome.ok, true, outcome.output);
    assert.match(outcome.output, /- landed: allowed\/a\.txt, src\/three\.ts/);
    assert.equal(readFileSync(file('src/three.ts'), 'utf8'), base.replace('= 5;', '= 500;'), 'only the accepted hunk');
  });

  it('Deny leaves the workspace byte for byte as it was, whatever the command created, changed or deleted', async () => {
    const before = tree(session.server.workspace);
    const result = control.invoke('run_in_terminal', { command: 'echo new > src/new.txt && echo more >> src/keep.txt && rm src/three.ts && chmod +x src/keep.txt && mkdir -p src/empty/inner' });
    await allowCommand();
    for (const target of ['src/new.txt', 'src/keep.txt', 'src/three.ts']) {
      await panel().deny(await panel().waitForCall('write_file', target, 60_000), 'not now');
    }
    const outcome = await result;
    assert.match(outcome.output, /NOT landed \(you denied it: "not now"\): src\/keep\.txt, src\/new\.txt, src\/three\.ts/);
    assert.deepEqual(tree(session.server.workspace), before);
  });

  it('a file the person saves while the command runs is not overwritten: it asks, though a rule allows it, and Deny keeps theirs', async () => {
    const stages = path.join(cache, 'toolgate-stages');
    const result = control.invoke('run_in_terminal', { command: 'sleep 3 && echo from-the-command > allowed/a.txt' });
    await allowCommand();
    await waitFor(() => existsSync(stages) && readdirSync(stages).some((name) => name.startsWith('stage-')), 'the command to start (its stage)', 60_000);
    writeFileSync(file('allowed/a.txt'), 'mine\n');
    const card = await panel().waitForCall('write_file', 'allowed/a.txt', 60_000);
    assert.match(await card.innerText(), /changed in the workspace while the command ran/);
    await panel().deny(card);
    const outcome = await result;
    assert.match(outcome.output, /NOT landed \(you denied it\): allowed\/a\.txt/);
    assert.equal(readFileSync(file('allowed/a.txt'), 'utf8'), 'mine\n');
  });
});

describe("undo after a staged command in the real VS Code: what it created, changed and deleted comes back byte for byte", function () {
  this.timeout(180_000);
  const model = useFakeModel();
  const control = new Control();
  const session = useCodeServer(() => ({
    env: control.env,
    extraExtensions: [control.vsix],
    files: { 'mod.txt': 'one\ntwo\n', 'del.txt': 'delete me\n', 'keep.txt': 'keep\n', 'latin1.txt': 'caf\u00e9\n' },
    settings: { ...model.workspaceSettings(), 'toolgate.autoApprove.edits': { '**': true } },
  }));

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
  const model = useFakeModel();
  const control = new Control();
  const session = useCodeServer(() => ({
    env: control.env,
    extraExtensions: [control.vsix],
    files: { 'mod.txt': 'one\ntwo\n', 'del.txt': 'delete me\n', 'keep.txt': 'keep\n' },
    settings: model.workspaceSettings(),
    machineSettings: { 'toolgate.sandbox.reviewCommandChanges': false },
  }));
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
    await panel.act(await panel.waitForCall('run_in_terminal', undefined, 60_000), 'allow-once');
    await (await chat.frame()).locator('[data-entry="assistant"]', { hasText: 'Done.' }).waitFor({ timeout: 60_000 });
    await chat.idle();
    // It wrote directly: the model is told what git saw it change, and the files are there at once.
    assert.match(sentToolResult(model.fake, 1, 'c1'), /What it changed in the workspace, as git saw it[^\n]*\n- del\.txt: deleted\n- made\.txt: created \(untracked\)\n- mod\.txt: modified/);
    assert.equal(readFileSync(path.join(root, 'mod.txt'), 'utf8'), 'one\ntwo\nthree\n');
    assert.equal(existsSync(path.join(root, 'del.txt')), false);

    const undone = await control.call<{ kind: string; text?: string }>('/command', { command: 'toolgate.undoTask' });
    assert.equal(undone.kind, 'undone', JSON.stringify(undone));
    assert.doesNotMatch(undone.text ?? '', /cannot be undone/);
    assert.deepEqual(withoutGit(tree(root)), before);
  });
});
