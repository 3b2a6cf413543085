/**
 * How many times a message has been tried. Not the queue's receive count: a batch from a FIFO
 * group comes back whole when one of its messages fails, so the messages behind the failing one
 * are received again and again without being run. The record counts the failures of the
 * message at the head of its inbox instead ({@link ActorRecord.failing}).
 */
import { jsonSize } from '../adapter/conflicts.ts';
import {
  type ActorRecord,
  type FailingMessage,
  MAX_FAILING_ERROR_CHARS,
} from '../adapter/storedRecords.ts';
import type { BatonError } from '../errors.ts';
import { isHighSurrogate } from '../shared/utf8.ts';
import { halted, isFresh } from './advanceRecord.ts';
import type { TurnEngine } from './createEngine.ts';
import type { Inbound } from './Inbound.ts';
import { commitGrowth } from './recordRoom.ts';
import { waitsForDeploy } from './turnErrors.ts';

/**
 * This delivery's attempt of `inbound` (1 for the first) on `record`; for a message an operator
 * ended ({@link FailingMessage.ended}), the attempts it made: this delivery runs nothing.
 */
export function attemptOf(record: ActorRecord, inbound: Inbound): number {
  const { failing } = record;
  const same = failing?.id === inbound.envelope.id && failing.at === inbound.queueSeq;
  return same ? failing.attempts + (failing.ended ? 0 : 1) : 1;
}

/**
 * The attempts of `inbound` this delivery makes: as the record counts them ({@link attemptOf}),
 * but by the queue's receives on a record too full to keep a count, which would never end.
 */
export function attemptsMade(engine: TurnEngine, record: ActorRecord, inbound: Inbound): number {
  const counted = attemptOf(record, inbound);
  if (counted > 1 || countedAttempt(engine, record, inbound)) return counted;
  return inbound.receiveCount ?? 1;
}

/**
 * Whether a message whose handler failed in this delivery with `error` is out of tries: its
 * attempts are spent ({@link attemptsFor}), or the queue would not deliver it again (its
 * `maxReceives`, when known): ended in the actor's turn, it is kept to redrive, and the
 * messages behind it get their turn.
 */
export function outOfAttempts(
  engine: TurnEngine,
  record: ActorRecord,
  inbound: Inbound,
  maxReceives: number | undefined,
  error: BatonError,
): boolean {
  if ((inbound.receiveCount ?? 1) >= (maxReceives ?? Infinity)) return true;
  return attemptsMade(engine, record, inbound) >= attemptsFor(engine, maxReceives, error);
}

/**
 * The attempts a message failing with `error` gets: `maxAttempts` — but a deploy's failure
 * (`waitsForDeploy`: newer code knows what it needs) gets every receive the queue allows but
 * its last, which stays the backstop for a worker that dies, when the queue says how many
 * (`maxReceives`; BatonApp's `maxReceiveCount`, 10): old code may run for minutes while a
 * deploy rolls, and a message that waits for the new code is applied by it, not dead-lettered.
 */
export function attemptsFor(
  engine: TurnEngine,
  maxReceives: number | undefined,
  error: BatonError,
): number {
  if (maxReceives === undefined || !waitsForDeploy(error)) return engine.maxAttempts;
  return Math.max(engine.maxAttempts, maxReceives - 1);
}

/**
 * `record` counting this failed attempt of `inbound`, to commit before it is retried, with the
 * handler and `error` that failed it ({@link FailingMessage}); with the count alone when the
 * error's text would not fit the record's item, and undefined when not even the count would.
 */
export function countedAttempt(
  engine: TurnEngine,
  record: ActorRecord,
  inbound: Inbound,
  error?: BatonError,
): ActorRecord | undefined {
  const { id, name } = inbound.envelope;
  const attempts = attemptOf(record, inbound);
  // A later attempt keeps its message's `since` (none on a record older than it).
  const since = attempts < 2 ? engine.clock.now() : record.failing!.since;
  const count: FailingMessage = { id, at: inbound.queueSeq, attempts, since };
  const told = error && {
    ...count,
    handler: name,
    error: { code: error.code, message: clipped(error.message) },
  };
  return (told && withFailing(engine, record, told)) || withFailing(engine, record, count);
}

/** `record` with `failing`, or undefined when it would not fit the record's item. */
function withFailing(
  engine: TurnEngine,
  record: ActorRecord,
  failing: FailingMessage,
): ActorRecord | undefined {
  // A fresh actor's count is all its record holds: it expires as that of one that applied
  // nothing (see `isFresh`), unless the message is applied in the end.
  const counted = isFresh(record)
    ? { ...record, failing, expiresAt: halted(engine, engine.clock.now()) }
    : { ...record, failing };
  // Its commit writes the next version, and may hold the sends of messages before it (apart).
  const bytes = jsonSize(counted) + commitGrowth(counted);
  return bytes <= engine.store.limits.maxItemBytes ? counted : undefined;
}

/** `text` cut to {@link MAX_FAILING_ERROR_CHARS}, an ellipsis saying so, no surrogate pair split. */
export function clipped(text: string): string {
  if (text.length <= MAX_FAILING_ERROR_CHARS) return text;
  let end = MAX_FAILING_ERROR_CHARS - 1;
  if (isHighSurrogate(text.charCodeAt(end - 1))) end--;
  return `${text.slice(0, end)}…`;
}
