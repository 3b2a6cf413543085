/**
 * What made a dead letter fail: the error it keeps and the causes nested in it, the innermost
 * of which every command prints as its cause (`dead-letters list` and `show`, `outcome`, `ask`,
 * `workflows show`, the inspector) and the `--code` filter matches.
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

/** An error as a dead letter or an outcome keeps it: its cause, if any, in its details. */
export interface KeptError {
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
  return causeChain(letter.error);
}

/**
 * `error`, then each `details.cause` in it. A cause kept as its code alone (an error cut to its
 * gist to fit an item) ends the chain, with the message of the error that held it.
 */
function causeChain(error: KeptError): KeptError[] {
  const chain: KeptError[] = [error];
  for (let cause = error.details?.cause; chain.length < 10; ) {
    const { code, message, details } = (cause ?? {}) as Partial<KeptError>;
    if (typeof code !== 'string') break;
    if (typeof message !== 'string') {
      chain.push({ code, message: chain.at(-1)!.message });
      break;
    }
    chain.push({ code, message, ...(details && { details }) });
    cause = details?.cause;
  }
  return chain;
}

/**
 * What made a message fail, of the error kept for it — its dead letter's, or the DEAD_LETTERED
 * its outcome or its asker was told: the innermost error of its chain. The one cause every
 * command prints, so that a letter reads the same in each.
 */
export function causeOfError(error: KeptError): { code: string; message: string } {
  const { code, message } = causeChain(error).at(-1)!;
  return { code, message };
}

/** What made the message fail: the innermost error the dead letter keeps. */
export function causeOf(letter: DeadLetter): { code: string; message: string } {
  return causeOfError(letter.error);
}
