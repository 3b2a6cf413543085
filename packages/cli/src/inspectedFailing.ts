/**
 * What holds an actor, as both inspectors (`baton dev`'s and `baton inspect`) show it: the
 * message failing at the head of its inbox (`ActorRecord.failing`), which its later messages
 * wait behind until it is applied or dead-lettered.
 */
import type { FailingMessage } from '@baton/core/adapter';

/** An actor's failing message, named as `baton actors get --json` names it (`failingMessage`). */
export interface InspectedFailing {
  readonly messageId: string;
  /** Its place in the actor's inbox. */
  readonly inboxPosition: string;
  /** The times its handler failed. */
  readonly attempts: number;
  /** The handler that failed, when the record names it. */
  readonly handler?: string;
  /** Its last error, in a line, when the record keeps it. */
  readonly error?: string;
}

/**
 * The failing message of a record, or null when none is failing. A record may also name the
 * handler that failed and keep its error (`handler`, `error`): those show when present.
 */
export function inspectFailing(failing: FailingMessage | undefined): InspectedFailing | null {
  if (!failing) return null;
  const { handler, error } = failing as FailingMessage & { handler?: unknown; error?: unknown };
  const errorLine = errorText(error);
  return {
    messageId: failing.id,
    inboxPosition: failing.at,
    attempts: failing.attempts,
    ...(typeof handler === 'string' && handler !== '' ? { handler } : {}),
    ...(errorLine === undefined ? {} : { error: errorLine }),
  };
}

/** An error kept as a line or as `{ code, message }`, in a line; undefined for anything else. */
function errorText(error: unknown): string | undefined {
  if (typeof error === 'string') return error === '' ? undefined : error;
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof message !== 'string') return undefined;
  return typeof code === 'string' && code !== '' ? `${code}: ${message}` : message;
}
