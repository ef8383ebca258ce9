/**
 * run_in_terminal in the real VS Code, with zsh or fish as the user's default terminal shell: the exact string that
 * was judged runs as one bash program text (interactive zsh would read `#` as a word and run `touch pwned`), the
 * output and exit code reach the model, the Toolgate terminal shows it, and Stop interrupts a running command.
 */
import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import type { Locator } from 'playwright-core';
import { ChatDriver, sentToolResult } from './harness/chat';
import { until } from './harness/until';
import { useSession } from './harness/session';
import type { Workbench } from './harness/workbench';


/** The text the visible terminal shows (xterm's DOM renderer, chosen by `terminal.integrated.gpuAcceleration: off`). */
async function waitForTerminalText(workbench: Workbench, expected: string[], timeoutMs = 20_000): Promise<string> {
  const rows = workbench.page.locator('.terminal-wrapper.active .xterm-rows');
  let text = '';
  return await until(
    async () => {
      text = (await rows.count()) > 0 ? await rows.first().innerText() : '';
      // xterm's DOM renderer draws spaces as no-break spaces.
      text = text.replace(/\u00a0/g, ' ');
      return expected.every((part) => text.includes(part)) && text;
    },
    `the terminal to show ${JSON.stringify(expected)}`,
    { timeoutMs, everyMs: 150, detail: () => `it shows:\n${text}` },
  );
}

/** The tab of a terminal by its title (the tab list, or the panel's title while there is one terminal). */
function terminalTab(workbench: Workbench, title: string): Locator {
  return workbench.page.locator('.terminal-tabs-entry, .single-terminal-tab', { hasText: title }).first();
}

const shells = [
  { name: 'zsh', path: '/usr/bin/zsh' },
  { name: 'fish', path: '/usr/bin/fish' },
];

for (const shell of shells) {
  describe(`run_in_terminal with ${shell.name} as the user's default terminal shell`, function () {
    this.timeout(180_000);
    const profile = `${shell.name} (user default)`;
    const session = useSession({
      model: true,
      userSettings: {
        'terminal.integrated.profiles.linux': { [profile]: { path: shell.path } },
        'terminal.integrated.defaultProfile.linux': profile,
        'terminal.integrated.gpuAcceleration': 'off',
      },
    });
    const { model, file, panel } = session;
    const chat = (): ChatDriver => new ChatDriver(session.workbench);
    it('`echo hi # ; touch pwned` runs as bash reads it: the model gets `hi` and exit code 0, and nothing is touched', async () => {
      const fake = model.fake;
      fake.script([
        { toolCalls: [{ id: 'call_comment', name: 'run_in_terminal', arguments: JSON.stringify({ command: 'echo hi # ; touch pwned' }) }] },
        { text: 'It printed hi.' },
      ]);
      const before = fake.requests.length;
      await chat().task('Say hi');
      const card = await panel().waitForCall('run_in_terminal', 'echo hi');
      await panel().act(card, 'allow-once');
      await until(() => fake.requests.length === before + 2, 'the tool result to reach the model');
      const result = sentToolResult(fake, before + 1, 'call_comment');
      assert.match(result, /^Exit code: 0\nOutput:\nhi\n?$/);
      assert.equal(existsSync(file('pwned')), false, 'touch pwned ran');
      await chat().idle();
      const shown = await waitForTerminalText(session.workbench, ['$ echo hi # ; touch pwned', '[exit code 0]']);
      assert.match(shown, /\$ echo hi # ; touch pwned\s*\nhi\s*\n\[exit code 0\]/);
      await terminalTab(session.workbench, 'Toolgate').waitFor({ timeout: 10_000 });
      await session.workbench.screenshot(`terminal-${shell.name}`);
    });

    it('a command with a carriage return asks, and after allow once runs as one bash line: nothing touched, output back', async () => {
      const fake = model.fake;
      const command = 'echo a\rtouch pwned2';
      fake.script([
        { toolCalls: [{ id: 'call_cr', name: 'run_in_terminal', arguments: JSON.stringify({ command }) }] },
        { text: 'Done.' },
      ]);
      const before = fake.requests.length;
      await chat().task('Print something');
      const card = await panel().waitForCall('run_in_terminal', 'pwned2');
      assert.equal(existsSync(file('pwned2')), false, 'nothing ran before approval');
      await panel().act(card, 'allow-once');
      await until(() => fake.requests.length === before + 2, 'the tool result to reach the model');
      const result = sentToolResult(fake, before + 1, 'call_cr');
      // bash prints `a<CR>touch pwned2`; the model gets what a terminal shows of it.
      assert.match(result, /^Exit code: 0\nOutput:\ntouch pwned2\n?$/);
      assert.equal(existsSync(file('pwned2')), false, 'touch pwned2 ran');
      await chat().idle();
      // The header shows the carriage return as `\r`, so the terminal does not obey it.
      await waitForTerminalText(session.workbench, ['$ echo a\\rtouch pwned2']);
    });

    it('Stop interrupts a running `sleep 30` at once, and the model is told it was stopped', async () => {
      const fake = model.fake;
      fake.script([{ toolCalls: [{ id: 'call_sleep', name: 'run_in_terminal', arguments: JSON.stringify({ command: 'echo sleeping; sleep 30' }) }] }]);
      const before = fake.requests.length;
      await chat().task('Wait a while');
      await panel().act(await panel().waitForCall('run_in_terminal', 'sleep 30'), 'allow-once');
      const frame = await chat().frame();
      await frame.locator('[data-entry="tool"][data-status="running"]').waitFor({ timeout: 20_000 });
      await waitForTerminalText(session.workbench, ['$ echo sleeping; sleep 30', 'sleeping\n']);
      const stoppedAt = Date.now();
      await frame.locator('[data-action="stop"]').click();
      await chat().idle();
      assert.ok(Date.now() - stoppedAt < 20_000, 'Stop did not wait for sleep 30 to end');
      await waitForTerminalText(session.workbench, ['[stopped: the task was cancelled']);
      assert.equal(fake.requests.length, before + 1, 'no model request after Stop');

      fake.script([{ text: 'Understood.' }]);
      await chat().task('What happened?');
      await until(() => fake.requests.length === before + 2, 'the next task to reach the model');
      const result = sentToolResult(fake, before + 1, 'call_sleep');
      assert.match(result, /The command was stopped because the task was cancelled\./);
      assert.match(result, /Output:\nsleeping/);
      await chat().idle();
    });

    it('Ctrl+C typed in the Toolgate terminal interrupts the command; the model is told the person stopped it', async () => {
      const fake = model.fake;
      fake.script([
        { toolCalls: [{ id: 'call_ctrl_c', name: 'run_in_terminal', arguments: JSON.stringify({ command: 'echo waiting; sleep 30' }) }] },
        { text: 'You stopped it.' },
      ]);
      const before = fake.requests.length;
      await chat().task('Wait again');
      await panel().act(await panel().waitForCall('run_in_terminal', 'echo waiting'), 'allow-once');
      await waitForTerminalText(session.workbench, ['$ echo waiting; sleep 30', 'waiting\n']);
      await session.workbench.page.locator('.terminal-wrapper.active .xterm').first().click();
      await session.workbench.page.keyboard.press('Control+C');
      await until(() => fake.requests.length === before + 2, 'the tool result to reach the model', { timeoutMs: 20_000 });
      const result = sentToolResult(fake, before + 1, 'call_ctrl_c');
      assert.match(result, /The person stopped the command with Ctrl\+C in its terminal\./);
      assert.match(result, /Output:\nwaiting/);
      await waitForTerminalText(session.workbench, ['[stopped with Ctrl+C']);
      await chat().idle();
    });

    it(`(the user's own terminal really is ${shell.name}, so the cases above ran with it as the default)`, async () => {
      await session.workbench.runCommand('Terminal: Create New Terminal');
      await terminalTab(session.workbench, shell.name).waitFor({ timeout: 30_000 });
      const tabs = session.workbench.page.locator('.terminal-tabs-entry', { hasText: 'Toolgate' });
      assert.equal(await tabs.count(), 1, 'one Toolgate terminal, reused for every command');
    });
  });
}
