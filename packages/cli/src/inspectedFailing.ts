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
 * The failing message of a record, or null when none is failing, with the handler that failed
 * and its last error when the record keeps them (one written by an earlier Baton does not).
 */
export function inspectFailing(failing: FailingMessage | undefined): InspectedFailing | null {
  if (!failing) return null;
  const { handler, error } = failing;
  return {
    messageId: failing.id,
    inboxPosition: failing.at,
    attempts: failing.attempts,
    ...(handler ? { handler } : {}),
    ...(error ? { error: `${error.code}: ${error.message.replace(/\s+/g, ' ')}` } : {}),
  };
}
