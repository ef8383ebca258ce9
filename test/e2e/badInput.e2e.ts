import * as assert from 'node:assert/strict';
import { useSession } from './harness/session';

interface Answer {
  name: string;
  method: 'evaluate' | 'requestApproval' | 'invokeTool';
  settled: 'resolved' | 'rejected';
  answer: unknown;
  /** The error the table expects (the source of a RegExp). */
  expected: string;
}

/** The error an in-band answer carries, without what each method wraps it in. */
function errorOf(answer: Answer): string {
  const value = answer.answer as { verdict?: string; approved?: boolean; ok?: boolean; reason?: string; output?: string };
  switch (answer.method) {
    case 'evaluate':
      assert.equal(value.verdict, 'deny');
      return (value.reason ?? '').replace(/^denied: /, '');
    case 'requestApproval':
      assert.equal(value.approved, false);
      return (value.reason ?? '').replace(/^denied: /, '');
    case 'invokeTool':
      assert.equal(value.ok, false);
      return (value.output ?? '').replace(/^Error: /, '').replace(/\. Nothing was run\.$/, '');
  }
}

/** What must never reach another extension: a raw JavaScript error's name or message. */
const rawError = /TypeError|RangeError|SyntaxError|ReferenceError|Cannot read properties|Maximum call stack|is not a function|undefined \(reading/;

/**
 * Toolgate's API as another extension calls it, with what a careless one hands over: the helper extension is that
 * caller (test/e2e/hostRunner/runner.ts), in the real VS Code.
 */
describe("the API answers another extension's bad input in-band, in the real VS Code", function () {
  this.timeout(180_000);
  const session = useSession({ control: true });
  const { control, panel } = session;

  it('evaluate, requestApproval and invokeTool each answer every bad shape with what is wrong, never a raw error', async () => {
    const answers = await control.call<Answer[]>('/badCalls');
    assert.ok(answers.length >= 3 * 30, `${answers.length} answers`);
    for (const answer of answers) {
      const where = `${answer.method}(${answer.name}): ${JSON.stringify(answer.answer).slice(0, 300)}`;
      assert.equal(answer.settled, 'resolved', where);
      assert.doesNotMatch(JSON.stringify(answer.answer), rawError, where);
      assert.match(errorOf(answer), new RegExp(answer.expected), where);
    }
  });

  it('invokeTool of a tool Toolgate cannot run is an error at once, with no card; a `__proto__` argument is on the card of requestApproval', async () => {
    // Before, this one waited on a card, and Allow once answered "allowed once by the person" though nothing ran.
    const unknown = await control.invoke('deploy_to_prod', { env: 'prod' });
    assert.equal(unknown.ok, false);
    assert.match(unknown.output, /^Error: unknown tool 'deploy_to_prod'\. Known tools: read_file, .*Nothing was run\.$/);
    assert.equal(unknown.decision, undefined);

    // The key is an own property of the arguments, as JSON.parse makes it (the control route parses the body so).
    const approval = control.call<{ approved: boolean; reason: string }>('/approval', JSON.parse('{"tool":"my_tool","args":{"id":1,"__proto__":{"x":1}},"source":"my.extension"}') as Record<string, unknown>);
    const card = await panel().waitForCall('my_tool');
    assert.match((await card.locator('[data-field="args"]').textContent()) ?? '', /"__proto__": \{\s*"x": 1\s*\},?\s*"id": 1/);
    await session.workbench.screenshot('proto-argument-card');
    // The only card is this one: the unknown tool above never reached the panel.
    assert.equal((await panel().callIds()).length, 1);
    await panel().deny(card, 'not this one');
    const outcome = await approval;
    assert.equal(outcome.approved, false);
    assert.match(outcome.reason, /not this one/);
  });
});
