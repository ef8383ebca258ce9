/**
 * Suggested rules in the real VS Code: the person allows `npm test` variants five times through the panel, opens the
 * suggestions (Toolgate: Show Suggested Rules), accepts the proposed `npm test` rule (written to the workspace
 * settings), and the sixth `npm test` runs without asking, while dangerous forms of the same command still ask. Then
 * a grant for the next few minutes, made in the panel, is listed with its time left and covers the next write.
 */
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ChatDriver, sentToolResult } from './harness/chat';
import { until } from './harness/until';
import { useSession } from './harness/session';

describe('fewer prompts: suggested rules and time-boxed grants', function () {
  this.timeout(300_000);
  const session = useSession({
    model: true,
    files: { 'package.json': `${JSON.stringify({ name: 'demo', version: '1.0.0', scripts: { test: 'echo tests-ran' } }, null, 2)}\n`, 'keep.txt': 'keep\n' },
  });
  const { model, file, panel } = session;
  const chat = (): ChatDriver => new ChatDriver(session.workbench);
  const run = (id: string, command: string): { id: string; name: string; arguments: string } => ({ id, name: 'run_in_terminal', arguments: JSON.stringify({ command }) });
  const variants = ['npm test', 'npm test --silent', 'npm test', 'npm test -s', 'npm test --silent'];

  it('five `npm test` allowed in the panel -> the suggested rule, accepted -> the sixth runs without asking; `;` chaining and a redirect outside still ask', async () => {
    const fake = model.fake;
    for (const [index, command] of variants.entries()) {
      fake.script([{ toolCalls: [run(`call_t${index}`, command)] }, { text: 'Tests ran.' }]);
      const before = fake.requests.length;
      await chat().task(`Run the tests (${index + 1})`);
      const card = await panel().waitForCall('run_in_terminal', command);
      await panel().act(card, 'allow-once');
      await until(() => fake.requests.length === before + 2, 'the tool result to reach the model');
      assert.match(sentToolResult(fake, before + 1, `call_t${index}`), /tests-ran/);
      await chat().idle();
    }

    await session.workbench.runCommand('Toolgate: Show Suggested Rules');
    const selector = '[data-suggestion-id="command:npm test=true"]';
    const frame = await session.workbench.webviewFrame(selector, 30_000);
    const suggestion = frame.locator(selector);
    assert.match(await suggestion.locator('[data-field="counts"]').innerText(), /asked 5, allowed 5, denied 0/);
    assert.equal(await suggestion.locator('[data-field="warning"]').count(), 0, 'no warning: no dangerous form gets through');
    const stillAsks = await suggestion.locator('[data-field="would-ask"]').innerText();
    for (const form of ['npm test; rm -rf probe', 'npm test > ../outside.txt', 'npm test -- --probe']) {
      assert.ok(stillAsks.includes(form), `${form} is shown as still asking:\n${stillAsks}`);
    }
    await session.workbench.screenshot('suggestions');
    await suggestion.locator('[data-action="accept-suggestion"]').click();
    await frame.locator('[data-field="done"]', { hasText: 'added "npm test": true to toolgate.autoApprove.terminal' }).waitFor({ timeout: 15_000 });
    await until(() => /"npm test": true/.test(readFileSync(file('.vscode/settings.json'), 'utf8')), 'the rule in the workspace settings');
    const settings = JSON.parse(readFileSync(file('.vscode/settings.json'), 'utf8')) as Record<string, unknown>;
    assert.deepEqual(settings['toolgate.autoApprove.terminal'], { 'npm test': true }, 'only the accepted key is written');
    // Nothing left to suggest, and the view says why beside the group rather than "No suggestion yet" alone.
    await frame.locator('[data-field="empty"]', { hasText: 'No suggestion yet: each group of your decisions below says why.' }).waitFor({ timeout: 15_000 });
    assert.equal(
      await frame.locator('tr', { hasText: 'npm test' }).locator('[data-field="why"]').innerText(),
      'already a rule: "npm test": true in toolgate.autoApprove.terminal',
    );

    // The sixth runs without asking.
    fake.script([{ toolCalls: [run('call_t6', 'npm test')] }, { text: 'Tests ran.' }]);
    let before = fake.requests.length;
    await chat().task('Run the tests (6)');
    await until(() => fake.requests.length === before + 2, 'the tool result to reach the model');
    assert.match(sentToolResult(fake, before + 1, 'call_t6'), /tests-ran/);
    await chat().idle();

    // Dangerous forms of the same command still ask: chaining with `;` and a redirect to a file outside.
    fake.script([
      { toolCalls: [run('call_chain', 'npm test; rm -rf keep.txt'), run('call_out', 'npm test > ../outside.txt')] },
      { text: 'Understood.' },
    ]);
    before = fake.requests.length;
    await chat().task('Run the tests and clean up');
    const chained = await panel().waitForCall('run_in_terminal', 'rm -rf keep.txt');
    const redirected = await panel().waitForCall('run_in_terminal', '../outside.txt');
    await panel().act(chained, 'deny');
    await panel().act(redirected, 'deny');
    await until(() => fake.requests.length === before + 2, 'the denials to reach the model');
    assert.match(sentToolResult(fake, before + 1, 'call_chain'), /denied/);
    assert.equal(existsSync(file('keep.txt')), true, 'keep.txt is still there');
    assert.equal(existsSync(path.join(path.dirname(session.server.workspace), 'outside.txt')), false, 'nothing was written outside');
    await chat().idle();
  });

  it('Allow for these minutes in the panel: the grant is listed with its time left and the next write of the file runs without asking', async () => {
    const fake = model.fake;
    const write = (id: string, content: string) => ({ id, name: 'write_file', arguments: JSON.stringify({ path: 'timed.txt', content }) });
    fake.script([{ toolCalls: [write('call_w1', 'one\n')] }, { text: 'Wrote it.' }]);
    let before = fake.requests.length;
    await chat().task('Write timed.txt');
    const card = await panel().waitForCall('write_file', 'timed.txt');
    await card.locator('[data-field="grant-scope"]').selectOption('path');
    await card.locator('[data-field="grant-minutes"]').fill('5');
    await panel().act(card, 'allow-minutes');
    await until(() => fake.requests.length === before + 2, 'the tool result to reach the model');
    await chat().idle();
    const frame = await session.workbench.webviewFrame('[data-grant-id][data-scope="timed"]');
    const listed = await frame.locator('[data-grant-id][data-scope="timed"]').innerText();
    assert.match(listed, /write_file: timed\.txt/);
    assert.match(listed, /\(5 min left\)/);

    fake.script([{ toolCalls: [write('call_w2', 'two\n')] }, { text: 'Wrote it again.' }]);
    before = fake.requests.length;
    await chat().task('Write timed.txt again');
    await until(() => fake.requests.length === before + 2, 'the tool result to reach the model');
    assert.equal(readFileSync(file('timed.txt'), 'utf8'), 'two\n');
    await chat().idle();
  });
});
