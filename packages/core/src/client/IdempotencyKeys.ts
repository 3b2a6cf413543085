/**
 * How the ingress `Client` keeps a keyed message idempotent over the store: it claims the key
 * for the message before anything is enqueued (a retry finds the first send's claim, and the
 * outcome of the message it repeats), and reads an outcome from when its claim says it was
 * sent, through {@link OUTCOME_READ_MAX_PAGES} outcome pages at most.
 */
import { heldAtPause } from '../adapter/awaitsRedrive.ts';
import { type Envelope, ingressIdBelongsTo } from '../adapter/envelope.ts';
import { answersMessage, idempotencyKeyReused } from '../adapter/idempotencyKeyReused.ts';
import { checkPayloadSize, payloadLimit } from '../adapter/payloadLimit.ts';
import type { Clock, Store } from '../adapter/ports.ts';
import type { IdempotencyRecord, Outcome } from '../adapter/storedRecords.ts';
import type { Caller } from '../caller.ts';
import { ErrorCode, errorFromJSON, isBatonError } from '../errors.ts';
import { receiptSecret, receiptSentAt } from './receipts.ts';

/** How far the clock of a send that made a claim may have run behind this one's. */
export const CLAIM_CLOCK_MARGIN_MS = 60 * 60 * 1000;

/**
 * Where a read of the outcome of a key `claim` holds starts: at the claim's send, less
 * {@link CLAIM_CLOCK_MARGIN_MS} (a retry's copy carries that send's `sentAt`, but one enqueued
 * by a Baton before it did may carry an earlier one, from a clock behind it); undefined for a
 * claim that names no send.
 */
export function claimedFrom(claim: { readonly sentAt?: number }): number | undefined {
  return claim.sentAt === undefined ? undefined : claim.sentAt - CLAIM_CLOCK_MARGIN_MS;
}

/**
 * The most outcome pages one read of a client may go through (64 KB of outcomes on DynamoDB):
 * `Client.outcome`, a retried `send` or `ask` looking for its first send's outcome, an
 * `ask` waiting for its reply. A read by id with no `sentAt`, or a retry days after its send,
 * would otherwise read every page a busy actor wrote since, for one request. An operator's
 * `baton outcome` reads the store without this bound.
 */
export const OUTCOME_READ_MAX_PAGES = 64;
/** A client's read of an outcome: through {@link OUTCOME_READ_MAX_PAGES} pages at most. */
export const BOUNDED_READ = { maxPages: OUTCOME_READ_MAX_PAGES };

/** A keyed message bound to its key: its outcome if it was processed already, else what to enqueue. */
export interface BoundKey {
  readonly known?: IdempotencyRecord;
  readonly envelope: Envelope;
  readonly dedupeId: string;
}

/** A client's idempotency keys: the claims that bind them, and the reads of outcomes. */
export class IdempotencyKeys {
  /**
   * @param claimRetentionMs how long the engine keeps outcomes (`idempotencyRetentionMs`): a
   * claim is kept twice that from its send
   */
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly claimRetentionMs: number,
  ) {}

  /**
   * Binds the envelope's key to its message. Resolves with the message's outcome when it was
   * processed already (a retry); else with the envelope to enqueue: a retry's carries the
   * `sentAt` of the send that claimed the key, since the actor tells a copy of a message it
   * applied long ago by it. IDEMPOTENCY_KEY_REUSED when another message holds the key.
   *
   * A claim is kept twice the outcomes' retention from its send: an outcome is committed
   * within a retention of its send (an older copy is dead-lettered, not applied) and kept a
   * retention after, so while any outcome of the key lives, so does its claim, and a key
   * claimed afresh has no outcome to look for.
   *
   * The envelope goes with the queue's dedupe id to enqueue it under: its id, so that the queue
   * drops a retry of a message it holds, unless the read of its outcome went through as many
   * pages as it may. The copy then reaches its actor whatever the queue holds (the actor skips
   * it, as any copy), and the actor keeps the outcome where the next read finds it at once (see
   * outcomeKeptApart.ts).
   */
  async bind(envelope: Envelope): Promise<BoundKey> {
    const fingerprint = envelope.fingerprint!;
    const expiresAt = this.clock.now() + 2 * this.claimRetentionMs;
    const held = await this.store.claimKey({
      key: envelope.id,
      fingerprint,
      expiresAt,
      sentAt: envelope.sentAt,
    });
    if (!held) return { envelope: { ...envelope, keyHeldUntil: expiresAt }, dedupeId: envelope.id };
    if (held.fingerprint !== fingerprint) throw idempotencyKeyReused(envelope);
    // A claim made before claims kept it, a retention before it expires, less a clocks' margin.
    const claimed = held.sentAt ?? held.expiresAt - this.claimRetentionMs - CLAIM_CLOCK_MARGIN_MS;
    // The claim's, never this send's own, even where it is earlier (a clock behind): the actor
    // and the reads look for a copy's outcome among messages sent from the copy's sentAt on, so
    // every copy must carry that of the one applied, whichever it was.
    const retry = { ...envelope, sentAt: claimed, keyHeldUntil: held.expiresAt };
    // A retry: its message may have been processed since. (Not read from the clocks' margin
    // before, as `outcome` reads: that would read an hour of a busy actor's pages for every retry
    // of a message not processed yet, the common one. Only a copy enqueued by a Baton before
    // every copy carried its claim's sentAt may be older: see claimedFrom.)
    let pastBound = false;
    const known = await this.store
      .readIdempotency(envelope.id, retry.sentAt, BOUNDED_READ)
      .catch((error: unknown) => {
        if (!isBatonError(error) || error.code !== ErrorCode.LIMIT_EXCEEDED) throw error;
        pastBound = true;
        return undefined;
      });
    const dedupeId = pastBound ? `${envelope.id}@${this.clock.now()}` : envelope.id;
    return known ? { known, envelope: retry, dedupeId } : { envelope: retry, dedupeId };
  }

  /**
   * The stored outcome of ingress message `messageId`, if processed — only to `caller` if it
   * sent it (see `Client.outcome`).
   */
  async outcome(
    messageId: string,
    caller: Caller,
    options: { readonly sentAt?: number; readonly keyed?: boolean },
  ): Promise<Outcome | undefined> {
    const system = caller.kind === 'system';
    if (!system && !ingressIdBelongsTo(messageId, caller)) return undefined;
    const store = this.store;
    // An outcome is committed within a retention of its send and kept a retention after.
    const oldest = this.clock.now() - 2 * this.claimRetentionMs - CLAIM_CLOCK_MARGIN_MS;
    // An unkeyed message's receipt tells when it was sent; a keyed message's claim does. The
    // read starts there, whatever the caller passes: a later start would let a caller measure
    // the pages an actor wrote in a window of its choosing.
    const sent = receiptSentAt(await receiptSecret(store), messageId);
    if (sent !== undefined) return sent < oldest ? undefined : this.#read(messageId, sent);
    const claim = store.readClaim ? await store.readClaim(messageId) : undefined;
    if (claim) return this.#read(messageId, Math.max(oldest, claimedFrom(claim) ?? oldest));
    // No receipt and no claim: no door took a message of this id from this caller, and no page
    // is read for it. Only trusted code (an operator's tools) reads on, from `sentAt`, unless it
    // says the message was keyed and the store would have its claim.
    if (!system || (options.keyed && store.readClaim)) return undefined;
    return this.#read(messageId, Math.max(oldest, options.sentAt ?? oldest));
  }

  /** The outcome of `messageId` among those of messages sent from `sentAt` on, if processed. */
  async #read(messageId: string, sentAt: number): Promise<Outcome | undefined> {
    const record = await this.store.readIdempotency(messageId, sentAt, BOUNDED_READ);
    // Parked at its paused actor: no outcome yet (the resume applies it).
    return record && !heldAtPause(record) ? record.outcome : undefined;
  }

  /**
   * Refuses a payload over the limit, half the store's item, as `ctx.send` does: one the store
   * could not keep whole (parked at a paused actor, kept as a dead letter) is refused here rather
   * than taken and lost there. But not the retry of a message an earlier release took under the
   * same key (`keyed`; its claim holds this very message): it is answered as any retry is.
   */
  async checkSize(envelope: Envelope, keyed: boolean): Promise<void> {
    const { to, name, payload } = envelope;
    try {
      checkPayloadSize(payloadLimit(this.store.limits), `to ${to}`, name, payload, to);
    } catch (error) {
      const claim = keyed ? await this.store.readClaim?.(envelope.id) : undefined;
      if (claim?.fingerprint !== envelope.fingerprint) throw error;
    }
  }
}

/** The reply or error an outcome holds, unless it answers another message under the same key. */
export function settle(record: IdempotencyRecord, envelope: Envelope): unknown {
  if (!answersMessage(record, envelope.fingerprint)) throw idempotencyKeyReused(envelope);
  if (record.outcome.ok) return record.outcome.value;
  throw errorFromJSON(record.outcome.error);
}
