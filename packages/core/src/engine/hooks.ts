/**
 * Engine hooks: what tools observe of the turns a worker runs — metrics (`onTurn` with
 * `turnMetrics`), `baton dev`'s inspector, tests — without wrapping the Worker or the Store.
 * Each is an engine option, called on the hot path: keep it cheap. A hook that throws is logged
 * and ignored; the turn goes on.
 */
import type { Commit } from '../adapter/ports.ts';
import type { DeadLetter } from '../adapter/storedRecords.ts';
import { toBatonError } from '../errors.ts';
import type { Logger } from '../logger.ts';

/** One message of a turn about to run, as decoded; `undefined` when it is not a Baton envelope. */
export interface TurnStartMessage {
  readonly id: string;
  readonly name: string;
  /** The sender: an actor id, or `ingress`. */
  readonly from: string;
}

/** A turn a worker is about to run: the actor and its batch, in queue order. */
export interface TurnStart {
  readonly actorId: string;
  readonly messages: readonly (TurnStartMessage | undefined)[];
}

/**
 * Told before each actor turn a worker runs. The same worker then calls `onCommit` for each of
 * the turn's commits and `onTurn` once when it ends (`failed` set when it failed as a whole).
 * A queue hands an actor's messages to one receiver at a time, so an actor has one turn running.
 */
export type TurnStartListener = (turn: TurnStart) => void;

/**
 * Told of each commit of a turn once the store applied it (on a journaled backend, once it is
 * durable), before its sends are drained and its messages acknowledged.
 */
export type CommitListener = (commit: Commit) => void;

/** Told of each message a turn ended as dead-lettered (DEAD_LETTERED), once committed. */
export type DeadLetterListener = (letter: DeadLetter) => void;

/** Calls `listener` with `event`, logging what it throws instead of failing the turn. */
export function notify<T>(
  logger: Logger,
  hook: string,
  listener: ((event: T) => void) | undefined,
  event: T,
  actorId: string,
): void {
  if (!listener) return;
  try {
    listener(event);
  } catch (error) {
    logger.warn(`the ${hook} listener threw; the turn is unaffected`, {
      actor: actorId,
      error: toBatonError(error).message,
    });
  }
}
