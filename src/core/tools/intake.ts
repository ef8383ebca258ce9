/**
 * At most `limit` pieces of work at once; the rest wait their turn, in the order they came. Work under the limit
 * starts at once, in the caller's own turn of the event loop.
 *
 * Written here rather than taken from p-limit: p-limit passes every piece of work through three promise hops even when
 * nothing waits, a tenth of what a granted MCP call cost the tool service; this is the counter and the queue only.
 */
export class Intake {
  private running = 0;
  /** Each waiting piece's start: called when a running one hands it its place. */
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) {
      throw new RangeError(`an intake needs a whole limit of at least 1, not ${String(limit)}`);
    }
  }

  /** How many run now, and how many wait. */
  get counts(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  /** The work's own promise when it starts at once (no wrapper, no hop); it waits its turn otherwise. */
  run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) {
      return new Promise<void>((start) => this.waiting.push(start)).then(() => this.started(work));
    }
    this.running++;
    return this.started(work);
  }

  /** Starts the work in a place already counted; the place is passed on or given back when it settles. */
  private started<T>(work: () => Promise<T>): Promise<T> {
    let running: Promise<T>;
    try {
      running = work();
    } catch (error) {
      running = Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    const done = (): void => {
      // The place passes to the next in line (still counted as running), or is given back.
      const next = this.waiting.shift();
      if (next !== undefined) {
        next();
      } else {
        this.running--;
      }
    };
    running.then(done, done);
    return running;
  }
}
