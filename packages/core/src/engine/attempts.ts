/**
 * How many times a message has been tried. Not the queue's receive count: a batch from a FIFO
 * group comes back whole when one of its messages fails, so the messages behind the failing one
 * are received again and again without being run. The record counts the failures of the
 * message at the head of its inbox instead ({@link ActorRecord.failing}).
 */
import type { ActorRecord, FailingMessage } from '../adapter/storedRecords.ts';
import type { Engine } from './createEngine.ts';
import type { Inbound } from './Inbound.ts';

/** This delivery's attempt of `inbound` (1 for the first) on `record`. */
export function attemptOf(record: ActorRecord, inbound: Inbound): number {
  const { failing } = record;
  const same = failing?.id === inbound.envelope.id && failing.at === inbound.queueSeq;
  return same ? failing.attempts + 1 : 1;
}

/**
 * Whether a message whose handler failed in this delivery is out of tries: its `maxAttempts`
 * are spent, or the queue would not deliver it again (its `maxReceives`, when known): ended in
 * the actor's turn, it is kept to redrive, and the messages behind it get their turn.
 */
export function outOfAttempts(
  engine: Engine,
  record: ActorRecord,
  inbound: Inbound,
  maxReceives: number | undefined,
): boolean {
  if (attemptOf(record, inbound) >= engine.maxAttempts) return true;
  return maxReceives !== undefined && (inbound.receiveCount ?? 1) >= maxReceives;
}

/** What the record keeps of a message whose handler failed in this delivery, to retry. */
export function failedOnce(record: ActorRecord, inbound: Inbound): FailingMessage {
  return {
    id: inbound.envelope.id,
    at: inbound.queueSeq,
    attempts: attemptOf(record, inbound),
  };
}
