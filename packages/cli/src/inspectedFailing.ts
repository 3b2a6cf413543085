/**
 * What holds an actor, as `baton actors get` and both inspectors (`baton dev`'s and `baton
 * inspect`) give it: the message failing at the head of its inbox (`ActorRecord.failing`),
 * which its later messages wait behind until it is applied or dead-lettered. One shape for all
 * three, so a script reads `failingMessage` of one as `failing` of the others.
 */
import type { FailingMessage } from '@baton/core/adapter';

/** An actor's failing message (`failingMessage` of `baton actors get --json`). */
export interface InspectedFailing {
  readonly messageId: string;
  /** Its place in the actor's inbox. */
  readonly inboxPosition: string;
  /** The times its handler failed. */
  readonly attempts: number;
  /** The handler that failed; null when the record does not name it. */
  readonly handler: string | null;
  /** Its last error, as the worker clipped it; null when the record does not keep it. */
  readonly error: { readonly code: string; readonly message: string } | null;
}

/**
 * The failing message of a record, or null when none is failing. A record written before the
 * handler and error were kept, or with no room for the error, has null for them: the worker's
 * log has the error (`message will be retried`, by message id).
 */
export function inspectFailing(failing: FailingMessage | undefined): InspectedFailing | null {
  if (!failing) return null;
  const { handler, error } = failing;
  return {
    messageId: failing.id,
    inboxPosition: failing.at,
    attempts: failing.attempts,
    handler: handler ?? null,
    error: error ? { code: error.code, message: error.message } : null,
  };
}

/** A failing message's error in one line (`CODE: message`), however many lines its message has. */
export const errorLine = (error: { readonly code: string; readonly message: string }): string =>
  `${error.code}: ${error.message.replace(/\s+/g, ' ')}`;
