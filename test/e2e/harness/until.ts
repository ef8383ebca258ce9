export interface UntilOptions {
  timeoutMs?: number;
  everyMs?: number;
  /** What was last seen, added to the time-out's message (read once, when the time is up). */
  detail?: () => string;
}

/**
 * Polls `probe` until it answers something other than `undefined` or `false`, and resolves with that answer: the one
 * wait of the e2e suite for what sends no event (a file on disk, requests a fake server received, the focus in a
 * frame). Throws `timed out after N ms waiting for <what>` (with the detail, if any) once the time is up.
 */
export async function until<T>(
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  { timeoutMs = 30_000, everyMs = 100, detail }: UntilOptions = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await probe();
    if (answer !== undefined && answer !== false) {
      return answer;
    }
    if (Date.now() >= deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${detail ? `; ${detail()}` : ''}`);
    }
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
