/**
 * What made a dead letter fail: the error it keeps and the causes nested in it, the innermost
 * of which `list` and `show` print and the `--code` filter matches.
 */
import type { DeadLetter } from '@baton/core/adapter';

/** `CODE n, …`, the most frequent first. */
export function countByCode(codes: readonly string[]): string {
  const byCode: Record<string, number> = {};
  for (const code of codes) byCode[code] = (byCode[code] ?? 0) + 1;
  return Object.entries(byCode)
    .sort(([, a], [, b]) => b - a)
    .map(([code, n]) => `${code} ${n}`)
    .join(', ');
}

interface KeptError {
  readonly code: string;
  readonly message: string;
  readonly details?: { readonly cause?: unknown };
}

/**
 * The error the dead letter keeps, then each `details.cause` in it: `DEAD_LETTERED`, the
 * failure the engine retried (`RETRYABLE`), and what that failure was (a deploy's
 * `UNKNOWN_MESSAGE`, say).
 */
export function errorChain(letter: DeadLetter): KeptError[] {
  const chain: KeptError[] = [letter.error];
  for (let cause = letter.error.details?.cause; isKeptError(cause) && chain.length < 10; ) {
    chain.push(cause);
    cause = cause.details?.cause;
  }
  return chain;
}

function isKeptError(value: unknown): value is KeptError {
  const error = value as KeptError | undefined;
  return typeof error?.code === 'string' && typeof error.message === 'string';
}

/** What made the message fail: the innermost error the dead letter keeps. */
export function causeOf(letter: DeadLetter): { code: string; message: string } {
  const { code, message } = errorChain(letter).at(-1)!;
  return { code, message };
}
