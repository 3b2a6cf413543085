/**
 * The records a backend keeps for the turn engine, as the ports of `ports.ts` read and write
 * them: actor records (the marks they keep are in `marks.ts`), outbox items, outcomes and
 * idempotency records, dead letters, timers.
 */

import type { SerializedError } from '../errors.ts';
import type { Envelope } from './envelope.ts';
import type { ChannelMark, SenderMark } from './marks.ts';

/**
 * The actor record format this Baton writes and understands. A later Baton raises it when it
 * changes what a field of the record means, or adds one that code unaware of it would break
 * by writing the record back (as `life` would have been); an earlier Baton then refuses to
 * write over such a record, and keeps the fields it does not know when it writes one of its
 * own format. See docs/deploys.md, "Upgrading Baton".
 *
 * Format 2 marks a record whose outcomes are kept in pages; format 3, one whose mark of a sender
 * forgot gaps ({@link SenderMark.forgottenUpTo}); format 4, one that parked a message at a pause
 * as this Baton does (a fire's timer kept, marked; a client message's outcome held), which an
 * earlier Baton's resume would apply regardless. Other records keep the format they had.
 *
 * @example
 * if ((record.format ?? 1) > RECORD_FORMAT) throw new RetryableError('written by a newer Baton');
 */
export const RECORD_FORMAT = 4;

/**
 * When a store may delete `record` (DynamoDB: its TTL): its `expiresAt` (a halted actor's, or
 * one its messages never changed), but not while it is paused or holds parked messages — they
 * wait in it however long the pause lasts, and the write that resumes or applies them sets it.
 * A record that holds undrained sends is not deleted either: stores check that apart.
 *
 * @example
 * const ttl = deletableAt(record); // undefined: keep the record
 */
export function deletableAt(record: ActorRecord): number | undefined {
  return record.paused || record.parked ? undefined : record.expiresAt;
}

/**
 * Where an actor's ingress outcomes go ({@link ActorRecord.outcomePage}): appended to its current
 * page ({@link OutcomePageWrite}) by each commit, so that a batch of ingress messages writes one
 * item for all its outcomes; a full page is closed and the next one begun.
 */
export interface OutcomePageState {
  /** The current page: a life's first is the time its pages began, in ms; then +1 a page. */
  readonly page: number;
  /** How many bytes of outcomes the current page holds (their `jsonSize`). */
  readonly bytes: number;
  /** The latest `sentAt` of an outcome in the current page; absent while it holds none. */
  readonly sentAt?: number;
  /**
   * The latest `sentAt` of an outcome in any closed page: a copy of a message in one was sent
   * at or before it (copies carry the first send's `sentAt`), so a message sent later is no copy
   * of one, and needs no look-up. Absent while no page is closed.
   */
  readonly closedSentAt?: number;
  /**
   * Set when pages began on a record whose earlier outcomes are idempotency records of their own
   * (written by a Baton before pages): a message sent at or before it may be a copy of one of
   * those, so its key is looked up there too.
   */
  readonly itemsBefore?: number;
}

/** An ingress outcome kept in its actor's outcome pages: with the `sentAt` of its message. */
export interface PagedOutcome extends IdempotencyRecord {
  readonly sentAt: number;
}

/**
 * A commit's outcomes, appended to one page of the actor's outcomes: each put only if the page
 * holds no live outcome of its key (DUPLICATE otherwise, as for {@link Commit.idempotency}).
 */
export interface OutcomePageWrite {
  readonly page: number;
  /** The latest `sentAt` of the outcomes in this page and every page before it, after the write. */
  readonly sentAt: number;
  readonly records: readonly PagedOutcome[];
  /**
   * True when the record's page state said the page held no outcome yet (`bytes` 0): this write
   * begins it. A store may then write the page whole, on the one condition that no such item
   * exists, instead of one condition per outcome; where it does exist (an earlier life of the
   * actor, begun by a Baton that numbered pages from 0, may have left it), the store must fall
   * back to the per-outcome conditions. Absent: the store cannot tell, and keeps those conditions.
   */
  readonly begins?: boolean;
}

/** One actor's durable record. Everything a turn changes, changed in one commit. */
export interface ActorRecord {
  /** `type/key` */
  readonly id: string;
  /** Commit counter: 0 for an actor never committed, then 1, 2, … */
  readonly ver: number;
  /**
   * Which life of the actor this record belongs to: a random id drawn at the life's first
   * commit and kept until a store deletes the record (after `ctx.halt()`). A new life counts
   * `ver` and `sentSeq` from 0 again, so the life tells its versions, message ids, ask ids and
   * timer generations from an earlier life's, and every commit condition compares it. Absent on
   * records written before lives existed (their next life has one).
   */
  readonly life?: string;
  /**
   * The format of the record, as far as Baton's own fields go ({@link RECORD_FORMAT}); absent
   * for format 1. A worker never writes over a record of a newer format than its own: the
   * message waits until the newer Baton runs everywhere.
   */
  readonly format?: number;
  /**
   * Fields a newer Baton wrote that this one does not know, as the store read them, written back
   * unchanged with the record. A store that keeps whole records (the embedded one) keeps them in
   * place instead and leaves this out.
   */
  readonly unknownFields?: Readonly<Record<string, unknown>>;
  /** The application state, a JSON value. */
  readonly state: unknown;
  /**
   * The version of the actor's definition that wrote `state` (`actor({ version })`); 0 when code
   * that did not know the actor's type wrote the record (to keep a dead letter), with no state.
   * @default 1
   */
  readonly stateVersion?: number;
  /** The queue sequence number of the last inbox message processed ("0" before any). */
  readonly inboxOffset: string;
  /**
   * The {@link Queue.identity} of the queue `inboxOffset` was read from: an offset from a queue
   * since replaced means nothing in the new one. Absent when the queue has no identity.
   */
  readonly inboxQueue?: string;
  /** Highest `seq` processed per actor sender, to skip re-sent outbox messages. */
  readonly marks: Readonly<Record<string, SenderMark>>;
  /** The last `seq` this actor gave to a message it sent. */
  readonly sentSeq: number;
  /** Per target actor: the last message sent to it, so the next one carries its `prev`. */
  readonly channels?: Readonly<Record<string, ChannelMark>>;
  /**
   * When marks last moved out of this record into `OverflowMark`s (marks.ts). Absent, or older than
   * the mark retention, means none is live, and no peer needs looking up.
   */
  readonly overflowedAt?: number;
  /**
   * Set when the actor halted (`ctx.halt()`), or by the first messages of an actor that left it
   * as new (see `isFresh` in the engine): its state is the initial one, and a store may delete
   * the record once this passes (DynamoDB: TTL) — not while it holds sends, is paused or holds
   * parked messages ({@link deletableAt}). It is twice the mark retention after the halt (or
   * after a later message the actor only skipped, rejected or dead-lettered), so every
   * receiver has forgotten this actor's sequence numbers, which a new life of the same id
   * starts over. A message the actor applies clears it, unless it leaves the actor as new: the
   * actor lives again, the same life.
   */
  readonly expiresAt?: number;
  /**
   * How many times the actor halted in this life: a halt counts it up, and the timers (and ask
   * continuations) scheduled before it never fire — their fires are skipped and the timers
   * removed then, so halting costs a commit no item per pending timer. @default 0
   */
  readonly timerEpoch?: number;
  /**
   * The sends of the commit that wrote this record, held in the record itself when they fit:
   * that commit is then one conditional write of one item. They are drained like outbox items
   * stored apart, and no one deletes them: the actor's next commit leaves them out (the engine
   * drains a record's held sends before it commits over them), or the sweeper retires them
   * ({@link Store.retireHeldOutbox}) once the actor is idle. Absent when none are held.
   */
  readonly outbox?: readonly OutboxItem[];
  /**
   * Set when the commit that wrote this record put its sends in outbox items apart, as they did
   * not fit in the record: a drain before the next commit must read them.
   */
  readonly outboxApart?: boolean;
  /**
   * Set while an operator holds the actor (`pauseActor`): its turns apply nothing, and each
   * message that arrives is parked ({@link DeadLetter.parked}), in order, until it is resumed.
   */
  readonly paused?: { readonly at: number; readonly by: string };
  /**
   * The place of the last message parked while the actor was paused, as long as any parked
   * message is not applied yet: the actor's next turn applies them first, in order.
   */
  readonly parked?: number;
  /**
   * Where this actor's ingress outcomes are appended, on a store that keeps outcomes in pages
   * ({@link Store.readPagedOutcomes}). Such a record has format 2.
   */
  readonly outcomePage?: OutcomePageState;
  /**
   * The message at the head of the inbox whose handler failed (retryably), at its inbox
   * position `at`, and how many times: a message's attempts are counted here, since the queue's
   * receives also count those it spent waiting behind a failing one, never run. Set by a turn
   * that stops at such a failure; gone once the inbox moves past a message.
   */
  readonly failing?: FailingMessage;
}

/**
 * See {@link ActorRecord.failing}. `since`, `handler` and `error` say since when, which handler
 * failed and how, for an operator (`baton actors get`); a record written before they were kept,
 * or one with no room for the error's text, has the count alone. Code that does not know them keeps them as they
 * are, or writes its own count without them: they need no newer record format.
 */
export interface FailingMessage {
  /** The envelope id. */
  readonly id: string;
  /** Its inbox position (queue sequence number). */
  readonly at: string;
  readonly attempts: number;
  /**
   * When its first failed attempt was committed (epoch ms): how long the actor has been stuck on
   * it. Absent on a record written before it was kept, and kept so by later attempts.
   */
  readonly since?: number;
  /** The message's name: the handler that failed. */
  readonly handler?: string;
  /** The last attempt's error: its code and its message, clipped to {@link MAX_FAILING_ERROR_CHARS}. */
  readonly error?: Pick<SerializedError, 'code' | 'message'>;
  /**
   * An operator ended it (`endFailingMessage`, `baton actors end-failing`): its next delivery
   * keeps it as a dead letter of its last error without running its handler, and the inbox
   * moves on. Code that does not know it runs the handler again, and a failure writes the count
   * without it: the end is then made again.
   */
  readonly ended?: { readonly at: number; readonly by: string };
}

/** The longest error message a {@link FailingMessage} keeps, so an error cannot bloat the record. */
export const MAX_FAILING_ERROR_CHARS = 300;

/** Committed sends of one turn, waiting to be drained into their targets' inboxes. */
export interface OutboxItem {
  readonly actorId: string;
  /** The `seq` of the first envelope: the drain order. */
  readonly seq: number;
  readonly envelopes: readonly Envelope[];
  readonly createdAt: number;
  /**
   * On items stored apart: the life of the actor that committed it ({@link ActorRecord.life}).
   * A store keeps items apart by actor, life and `seq`, since a new life counts `seq` from 1
   * again while an earlier life's items may still wait; an item whose life is not the record's
   * is of a life that ended. Absent on held sends, and on items of records without a life.
   */
  readonly life?: string;
}

/** The result of a handler as an asker sees it. */
export type Outcome =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: SerializedError };

/** Proof that an ingress message was processed, kept for the retention window (I7). */
export interface IdempotencyRecord {
  /** The envelope id: the client's idempotency key scoped by target and caller (`ingress:[…]`). */
  readonly key: string;
  readonly actorId: string;
  readonly outcome: Outcome;
  readonly expiresAt: number;
  /** The message's digest of name and payload, to refuse a key reused for another message. */
  readonly fingerprint?: string;
}

/**
 * A keyed ingress message's hold on its idempotency key, written when the message is sent,
 * before it is enqueued: the key is bound to one message (its `fingerprint`) from then on, so
 * another message sent with the same key is refused at once (IDEMPOTENCY_KEY_REUSED), even while
 * the first waits in the queue. Kept longer than the message's outcome can be.
 */
export interface KeyClaim {
  /** The envelope id: the client's idempotency key scoped by target and caller (`ingress:[…]`). */
  readonly key: string;
  /** The message's digest of name and payload ({@link IdempotencyRecord.fingerprint}). */
  readonly fingerprint: string;
  readonly expiresAt: number;
  /**
   * The `sentAt` of the message that claimed the key: a retried send carries it, so that the
   * actor knows a copy by it ({@link OutcomePageState.closedSentAt}). Absent on claims made
   * before it was kept.
   */
  readonly sentAt?: number;
}

/**
 * A message the engine ended after it kept failing (DEAD_LETTERED), kept with the actor for
 * inspection and redrive. Written and removed only in the actor's own commits.
 */
export interface DeadLetter {
  readonly actorId: string;
  /** The envelope id. */
  readonly messageId: string;
  /** The message as received; its payload is dropped when it would not fit a record. */
  readonly envelope: Envelope;
  /** Whether the envelope is whole, so a redrive can apply it. */
  readonly redrivable: boolean;
  readonly error: SerializedError;
  /** Deliveries before the engine gave up. */
  readonly attempts: number;
  readonly at: number;
  /**
   * Set when the message is a timer's fire (or an ask's reply): the timer, which stays stored,
   * marked {@link Timer.deadLettered}. A redrive (or a resume, for a parked fire) applies the
   * fire only while that scheduling of the timer is stored still: once it is cancelled,
   * scheduled anew or voided by a halt, it applies nothing and forgets the letter.
   */
  readonly timer?: { readonly id: string; readonly gen: string };
  /**
   * Set on a message held while its actor was paused, not a failure: its place among the
   * actor's parked messages (1, 2, …). The actor applies them in that order when resumed;
   * they are not dead letters to list, redrive or purge.
   */
  readonly parked?: number;
  /**
   * Set on a message kept as too old to tell whether it was applied: an actor's older than its
   * sender's mark, which cannot tell a copy of it (see `outlivedItsProof`), or of a sender's
   * ended life; a client's older than its outcome. Its asker was not answered; a redrive needs
   * force (see `redriveNeedsForce`). Like a message of a sender's ended life, once a redrive
   * applies it, its letter stays as the proof ({@link applied}).
   */
  readonly unmarked?: true;
  /**
   * Set once a redrive applied a message no mark tells a copy of: one of a sender's ended life
   * ({@link Envelope.lifeEnded}), or one kept as too old to tell ({@link unmarked}). Its letter
   * stays, without its payload, as the proof that it was applied, until `expiresAt` (the mark
   * retention after the redrive): a copy that comes meanwhile finds it and is dropped. It is not
   * a dead letter to list, redrive or purge.
   */
  readonly applied?: { readonly at: number; readonly expiresAt: number };
  /**
   * The life of its actor's record when it was kept ({@link ActorRecord.life}; absent on a
   * letter an earlier Baton kept), and the halts in that life before it ({@link
   * ActorRecord.timerEpoch}; absent on a letter a Baton before epochs kept, told by its life
   * alone). A letter's redrive kept again names the letter's. Once the actor halted since, or its
   * record expired, a redrive would apply the message to the actor begun anew: it needs force
   * (see `ofEndedLife`), when it is sent and when it is applied.
   */
  readonly life?: string;
  readonly epoch?: number;
}

/** What firing a timer needs: which actor, which timer and scheduling, when. */
export interface TimerRef {
  readonly actorId: string;
  /** The handle's id, unique per actor: scheduling the same id again replaces the timer. */
  readonly id: string;
  /** Which scheduling of `id` this is: a fire of an earlier one is skipped. */
  readonly gen: string;
  /** When it is due, epoch ms. */
  readonly at: number;
  /** The message the actor receives. */
  readonly name: string;
}

/**
 * A durable timer: a message an actor scheduled to itself (`ctx.schedule`), kept with the actor
 * until it is handled or cancelled. Written and removed only in the actor's own commits, so a
 * fire the actor has handled, or a cancelled timer, can never be applied again.
 */
export interface Timer extends TimerRef {
  readonly payload: unknown;
  /** The trace context of the handling that scheduled it. */
  readonly traceparent?: string;
  readonly createdAt: number;
  /** The life of the actor that scheduled it ({@link ActorRecord.life}). */
  readonly life?: string;
  /** The actor's {@link ActorRecord.timerEpoch} when it was scheduled. @default 0 */
  readonly epoch?: number;
  /**
   * Set when its fire was dead-lettered or parked ({@link DeadLetter.timer}): it fires no more
   * (no store lists it due), and stays until the letter is redriven (or resumed, when parked),
   * or the timer is cancelled or scheduled anew, so a cancel after the letter still means the
   * fire is never applied.
   */
  readonly deadLettered?: true;
}
