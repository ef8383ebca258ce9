import * as assert from 'node:assert/strict';
import { Intake } from '../../src/core/tools/intake';

/** A piece of work that runs until it is told to end, and notes when it started. */
function held(log: string[], name: string): { work: () => Promise<string>; end: (fail?: boolean) => void } {
  let end: (fail?: boolean) => void = () => undefined;
  const work = (): Promise<string> =>
    new Promise<string>((resolve, reject) => {
      log.push(`start ${name}`);
      end = (fail) => (fail === true ? reject(new Error(`${name} failed`)) : resolve(name));
    });
  return { work, end: (fail) => end(fail) };
}

/** Lets every settled promise's reactions run. */
const settled = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('the intake: at most a few pieces of work at once (core/tools/intake)', () => {
  it('starts work under the limit at once, in the caller\'s turn, and hands back its own promise', async () => {
    const intake = new Intake(2);
    const log: string[] = [];
    const a = held(log, 'a');
    const started = a.work;
    let made: Promise<string> | undefined;
    const running = intake.run(() => (made = started()));
    assert.deepEqual(log, ['start a'], 'started before run returned');
    assert.equal(running, made, 'no wrapper around the work');
    a.end();
    assert.equal(await running, 'a');
    await settled();
    assert.deepEqual(intake.counts, { running: 0, waiting: 0 });
  });

  it('holds work past the limit, and starts it in the order it came as places free', async () => {
    const intake = new Intake(2);
    const log: string[] = [];
    const pieces = ['a', 'b', 'c', 'd', 'e'].map((name) => held(log, name));
    const results = pieces.map((piece) => intake.run(piece.work));
    assert.deepEqual(log, ['start a', 'start b']);
    assert.deepEqual(intake.counts, { running: 2, waiting: 3 });
    pieces[1]?.end();
    await settled();
    assert.deepEqual(log, ['start a', 'start b', 'start c']);
    pieces[0]?.end(true); // a failure frees its place as well
    await settled();
    assert.deepEqual(log, ['start a', 'start b', 'start c', 'start d']);
    assert.deepEqual(intake.counts, { running: 2, waiting: 1 });
    pieces[2]?.end();
    pieces[3]?.end();
    await settled();
    pieces[4]?.end();
    const outcomes = await Promise.allSettled(results);
    assert.deepEqual(outcomes.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value : (outcome.reason as Error).message)), ['a failed', 'b', 'c', 'd', 'e']);
    await settled();
    assert.deepEqual(intake.counts, { running: 0, waiting: 0 });
  });

  it('a piece that throws before it returns a promise rejects, and gives its place back', async () => {
    const intake = new Intake(1);
    await assert.rejects(intake.run(() => { throw new Error('at once'); }), /at once/);
    await settled();
    assert.deepEqual(intake.counts, { running: 0, waiting: 0 });
    assert.equal(await intake.run(() => Promise.resolve('next')), 'next');
  });

  for (const limit of [0, -1, 1.5, Number.NaN]) {
    it(`refuses a limit of ${String(limit)}`, () => {
      assert.throws(() => new Intake(limit), /a whole limit of at least 1/);
    });
  }
});
