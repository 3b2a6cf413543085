/** One attempt of a step, held to its `timeoutMs`. */
import { BatonError, ErrorCode } from '../errors.ts';

/**
 * Runs `attempt` with a signal of its own; with `timeoutMs`, fails it with TIMED_OUT once it has
 * run that long, and aborts its signal (what it passed the signal to stops; the rest runs on,
 * its result dropped).
 *
 * @example
 * const value = await withinTimeout('charge', 5_000, (signal) => fetch(url, { signal }));
 */
export async function withinTimeout<T>(
  step: string,
  timeoutMs: number | undefined,
  attempt: (signal: AbortSignal) => T | Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  if (timeoutMs === undefined) return attempt(controller.signal);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new BatonError(
        ErrorCode.TIMED_OUT,
        `step "${step}" ran longer than its timeoutMs of ${timeoutMs} ms: the attempt failed and its info.signal was aborted; it is retried by the step's retry policy, with the same key`,
        { details: { step, timeoutMs } },
      );
      controller.abort(error);
      reject(error);
    }, timeoutMs);
  });
  const running = Promise.resolve().then(() => attempt(controller.signal));
  // Its failure after the timeout is no one's to handle.
  running.catch(() => {});
  try {
    return await Promise.race([running, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
