/**
 * The run's book of the engine's dead letters, as an operator keeps it: the letters each commit
 * put and removed, which to redrive next (and which never: a message whose code fails it alike
 * each time, or that may have been applied), the messages failing at an actor's head, the
 * senders answered DEAD_LETTERED, and the channels a message of which left the inbox's order.
 */
import { ErrorCode } from '@baton/core';
import type { ActorRecord, Commit } from '@baton/core/adapter';
import { answeredSender } from '@baton/core/engine';

/** One of the engine's dead letters, as the run saw it committed. */
export interface DeadLetter {
  readonly actorId: string;
  readonly messageId: string;
  redriven: boolean;
}

/**
 * A message whose dead letter came back after every redrive the run allows: its handler fails
 * the same way each time, and the run would redrive it forever.
 */
export interface RedriveLoop {
  readonly actorId: string;
  readonly messageId: string;
  /** The message's name: its handler. */
  readonly handler: string;
  readonly redrives: number;
  /** The letter's error text. */
  readonly error: string;
  /** The code of what the letter was kept for (`RETRYABLE`: its handler threw, and ran out of attempts). */
  readonly cause: string | undefined;
}

/** Causes of a letter kept while a rolling deploy goes on: it ends, and the redrive applies. */
const UNKNOWN_TO_OLD_CODE: ReadonlySet<string> = new Set([
  ErrorCode.UNKNOWN_ACTOR,
  ErrorCode.UNKNOWN_MESSAGE,
  ErrorCode.INVALID_PAYLOAD,
]);

/** The engine's dead letters now kept (`actorId` and message id), from the commits seen. */
export class DeadLetterBook {
  readonly #letters = new Map<string, DeadLetter>();
  /**
   * Messages kept while their sender was answered DEAD_LETTERED (`answeredSender`), by message
   * id: how many times each was redriven with force since.
   */
  readonly #answered = new Map<string, { forced: number }>();
  /** Redrives of each message's letters so far, by `actorId` and message id. */
  readonly #redrives = new Map<string, number>();
  /** The first message whose letters came back after every redrive allowed, if any. */
  loop: RedriveLoop | undefined;
  /**
   * The first message kept for its code's fault (see `committed`), which no redrive applies
   * until the code is fixed; left alone when the run expects dead letters (`maxRedrives` 0).
   */
  fault: RedriveLoop | undefined;
  /** The channels (`from→to`) a message of which left the inbox's order: see {@link detoured}. */
  readonly #detours = new Set<string>();
  /** By actor, the message failing at the head of its inbox that no operator ended yet. */
  readonly #failing = new Map<string, string>();
  /** Messages an operator ended whose letter is not kept yet. */
  readonly #ended = new Set<string>();

  /**
   * @param maxRedrives redrives of one message's letters (`SimulationOptions.deadLetterRedrives`);
   * a letter of it kept after the last is a {@link RedriveLoop}; 0: none, and no loop
   * @param processedBefore whether a message may have been processed already (a copy the run
   * redrove late, see `LateCopies`; `forgottenGaps`: its letter was kept where its receiver's
   * mark forgot the channel's gaps, where a copy of a message applied is kept too): its letters
   * kept as too old to tell are never redriven, as an operator redrives such a letter only if it
   * knows the message was never applied
   */
  constructor(
    readonly maxRedrives = 3,
    readonly processedBefore: (messageId: string, forgottenGaps: boolean) => boolean = () => false,
  ) {}

  /**
   * Books the dead letters a commit of `actorId` removed and put; `byOldCode` when the process
   * that committed them runs older code than the last deployed. @returns how many it put
   */
  committed(actorId: string, deadLetters: Commit['deadLetters'], byOldCode = false): number {
    // The proof that a redrive of an ended life's message leaves is no dead letter.
    const proofs = (deadLetters?.put ?? []).filter((letter) => letter.applied);
    for (const removed of [...(deadLetters?.remove ?? []), ...proofs.map((p) => p.messageId)]) {
      this.#letters.delete(`${actorId}\u0000${removed}`);
    }
    // A message parked at a paused actor is no dead letter: its resume applies it, in order.
    const put = (deadLetters?.put ?? []).filter(
      (letter) => !letter.applied && letter.parked === undefined,
    );
    for (const letter of put) {
      if (answeredSender(letter) !== undefined && !this.#answered.has(letter.messageId)) {
        this.#answered.set(letter.messageId, { forced: 0 });
      }
    }
    for (const letter of put) this.detoured(actorId, letter.envelope);
    for (const { messageId, error, envelope, unmarked } of put) {
      // A message kept for its code's fault — too large for any commit, its handler left state
      // the code cannot commit or its record cannot hold, or a migration of its actor's state
      // threw (the cause of its DEAD_LETTERED) — fails again on the same code: an operator
      // deploys a fix before redriving it, which a run does not.
      const cause = error.details?.cause as
        | {
            readonly code?: string;
            readonly details?: {
              readonly migrateStep?: unknown;
              readonly cause?: { readonly code?: string };
            };
          }
        | undefined;
      const codeFault =
        cause?.code === ErrorCode.MESSAGE_TOO_LARGE ||
        cause?.code === ErrorCode.INVALID_STATE ||
        cause?.code === ErrorCode.STATE_TOO_LARGE ||
        cause?.details?.migrateStep !== undefined;
      const key = `${actorId}\u0000${messageId}`;
      const redrives = this.#redrives.get(key) ?? 0;
      // Ended by an operator before its attempts ran out (its last error perhaps written by old
      // code in a rolling deploy, whichever process keeps the letter): no sign of a loop.
      const ended = this.#ended.delete(key);
      // A letter too old to tell (its sender's mark cannot, or its life ended) of a message that
      // may have been processed is left; one kept for its failures is the message's own, unapplied.
      const tooOld = unmarked === true || envelope.lifeEnded === true;
      // Kept again after every redrive allowed, and not by or for old code in a rolling deploy
      // (which ends: a redrive that old code takes may keep it again; a letter cut to fit an item
      // keeps its causes' codes, which say so): the handler fails this message each time, and no
      // redrive will change that. A letter kept as too old to tell is no failure of its handler
      // (a copy redriven late, after time passed its sender's mark): it is no sign of a loop.
      const looping =
        !ended &&
        !codeFault &&
        !byOldCode &&
        !tooOld &&
        this.maxRedrives > 0 &&
        redrives >= this.maxRedrives &&
        !UNKNOWN_TO_OLD_CODE.has(cause?.details?.cause?.code ?? '');
      const booked = {
        actorId,
        messageId,
        handler: envelope.name,
        redrives,
        error: error.message,
        cause: cause?.code,
      };
      if (looping && !this.loop) this.loop = booked;
      // State the code cannot commit, or a migration that threw, by the code deployed last: no
      // redrive applies it, and a test that asserts on state alone would pass with the message
      // lost. (Too large for a commit is left to a run's own `limits`, which set it up.)
      const faulty =
        (cause?.code === ErrorCode.INVALID_STATE || cause?.details?.migrateStep !== undefined) &&
        !ended &&
        !byOldCode &&
        !tooOld &&
        this.maxRedrives > 0;
      if (faulty && !this.fault) this.fault = booked;
      const redriven =
        codeFault ||
        looping ||
        this.maxRedrives === 0 ||
        (tooOld && this.processedBefore(messageId, error.details?.forgottenGaps === true));
      this.#letters.set(key, { actorId, messageId, redriven });
    }
    return put.length;
  }

  /** The first dead letter not redriven yet. */
  next(): DeadLetter | undefined {
    return [...this.#letters.values()].find((l) => !l.redriven);
  }

  /** Books the message failing at the head of a committed `record`'s inbox, if any. */
  headOf(record: ActorRecord): void {
    if (record.failing && !record.failing.ended) this.#failing.set(record.id, record.failing.id);
    else this.#failing.delete(record.id);
  }

  /** The first message failing at an actor's head that no operator ended, if any. */
  nextFailing(): { readonly actorId: string; readonly messageId: string } | undefined {
    const [first] = this.#failing;
    return first && { actorId: first[0], messageId: first[1] };
  }

  /** Books that the message failing at `actorId`'s head is being ended. */
  ending(actorId: string): void {
    this.#failing.delete(actorId);
  }

  /** Books that an operator ended message `messageId` at `actorId`'s head. */
  ended(actorId: string, messageId: string): void {
    this.#ended.add(`${actorId}\u0000${messageId}`);
  }

  /**
   * Whether message `messageId`'s sender was answered DEAD_LETTERED when one of its letters was
   * kept, and then how many times a redrive forced it; `undefined` if never.
   */
  answered(messageId: string): { readonly forced: number } | undefined {
    const answered = this.#answered.get(messageId);
    return answered && { ...answered };
  }

  /** Counts a redrive with force of message `messageId`, whose sender was answered. */
  forced(messageId: string): void {
    const answered = this.#answered.get(messageId);
    if (answered) answered.forced++;
  }

  /**
   * Books that a message to `actorId` left its inbox's order — kept as a dead letter, or moved to
   * the queue's dead-letter queue — so that its redrive may apply it after messages sent later on
   * its channel (I3's documented exception). Without its envelope, every channel to the actor.
   */
  detoured(actorId: string, envelope: { from: string; to: string } | undefined): void {
    this.#detours.add(envelope ? `${envelope.from}→${envelope.to}` : `*→${actorId}`);
  }

  /** The channels booked by {@link detoured}: `from→to`, or `*→to` for any sender. */
  get detours(): ReadonlySet<string> {
    return this.#detours;
  }

  /** Counts a redrive of `letter`'s message. */
  redriving(letter: DeadLetter): void {
    letter.redriven = true;
    const key = `${letter.actorId}\u0000${letter.messageId}`;
    this.#redrives.set(key, (this.#redrives.get(key) ?? 0) + 1);
  }
}
