import { BatonError, ErrorCode } from '@baton/core';
import {
  type ActorRecord,
  answersMessage,
  awaitsRedrive,
  type ChangeFeed,
  type IdempotencyRecord,
  type Store,
} from '@baton/core/adapter';
import { claimedFrom, OUTCOME_READ_MAX_PAGES } from '@baton/core/client';
import { positionOf, type ReadPosition, withNewest } from '../evaluation/ReadPosition.ts';

/**
 * How far a read of an outcome may go: as far as a client's own read. A retry's outcome past it
 * is brought where the next read finds it by its actor, which the retry reaches (see the
 * engine's outcomeKeptApart.ts).
 */
const BOUNDED_READ = { maxPages: OUTCOME_READ_MAX_PAGES };

/**
 * A wait for one ingress message, started before the message is enqueued.
 *
 * @example
 * const wait: CommitWait = tracker.wait('dep-1', 'account/alice', { onFeed: false });
 * connection.on('close', () => wait.cancel());
 */
export interface CommitWait {
  /**
   * The message's idempotency record once it is committed (and, if asked, delivered by the
   * change feed): its outcome, and the fingerprint telling whether it answers the waiter's message.
   */
  readonly record: Promise<IdempotencyRecord>;
  /**
   * Tells when the message was first sent, once it is accepted: a store polled for its outcome
   * then reads no outcome page of messages sent before.
   */
  sentAt(at: number): void;
  /** Stops waiting; `record` then never settles. */
  cancel(): void;
}

interface Watch {
  readonly messageId: string;
  readonly actorId: string;
  readonly onFeed: boolean;
  /** Whether an outcome ends the wait: not one that waits for its letter's redrive. */
  readonly settles: (record: IdempotencyRecord) => boolean;
  readonly resolve: (record: IdempotencyRecord) => void;
  readonly reject: (error: BatonError) => void;
  /** The record, once known, waiting for the feed to deliver version `at.ver` of life `at.life`. */
  awaiting?: { readonly record: IdempotencyRecord; readonly at: ReadPosition };
  timers: ReturnType<typeof setTimeout>[];
  done: boolean;
  /** When the message was first sent, once known: what polls read its outcome with. */
  sentAt?: number;
}

/**
 * Tells when ingress messages are committed: by the store's outcome push (`watchOutcomes`) or,
 * for stores without one, by polling their idempotency record. With `onFeed`, it also waits
 * until the change feed has delivered the actor's record at (at least) the committed version,
 * so the query engine has seen the commit — even on a feed that lags the store (DynamoDB
 * Streams). An outcome already stored when the wait starts (a re-sent message) is taken as
 * delivered. An outcome that waits for a redrive (`awaitsRedrive`: DEAD_LETTERED of a plain
 * send under the key, kept as a dead letter a redrive applies without force) ends no wait of
 * that message: the wait goes on for the outcome that replaces it, which its redrive or purge
 * commits. Waits end with ASK_TIMEOUT after `timeoutMs`.
 *
 * @example
 * const wait = tracker.wait('dep-1', 'account/alice', { onFeed: true }); // before enqueueing
 * await client.send(Account.ref('alice'), 'deposit', { amount: 5 }, { idempotencyKey: 'dep-1' });
 * const { outcome } = await wait.record; // committed, and seen by the engine
 */
export class CommitTracker {
  readonly #watches = new Map<string, Set<Watch>>();
  /** Actors with a wait on the feed → their waits. */
  readonly #byActor = new Map<string, Set<Watch>>();
  /**
   * The newest version of each life the feed delivered, for actors with a wait on it: a new
   * life after `ctx.halt()` counts its versions from 1 again.
   */
  readonly #seen = new Map<string, ReadPosition[]>();
  readonly #unsubscribe: Array<() => void> = [];
  readonly #polls: boolean;

  constructor(
    private readonly store: Store,
    feed: ChangeFeed,
    private readonly timeoutMs = 30_000,
  ) {
    this.#unsubscribe.push(feed.subscribe((record) => this.#onRecord(record)));
    const unwatch = store.watchOutcomes?.((record) => this.#onOutcome(record));
    if (unwatch) this.#unsubscribe.push(unwatch);
    this.#polls = unwatch === undefined;
  }

  wait(
    messageId: string,
    actorId: string,
    options: {
      onFeed: boolean;
      /** The waiter's message's: another message's outcome under the key ends the wait. */
      fingerprint?: string | undefined;
    },
  ): CommitWait {
    const settles = (record: IdempotencyRecord) =>
      !awaitsRedrive(record) || !answersMessage(record, options.fingerprint);
    let watch!: Watch;
    const committed = new Promise<IdempotencyRecord>((resolve, reject) => {
      watch = {
        messageId,
        actorId,
        onFeed: options.onFeed,
        settles,
        resolve,
        reject,
        timers: [],
        done: false,
      };
    });
    committed.catch(() => {});
    add(this.#watches, messageId, watch);
    if (options.onFeed) {
      add(this.#byActor, actorId, watch);
      if (!this.#seen.has(actorId)) this.#seen.set(actorId, []);
    }
    const timeout = setTimeout(() => {
      const message = `${messageId} was not committed within ${this.timeoutMs} ms; it may still be processed: send it again with the same idempotencyKey`;
      const details = { messageId, timeoutMs: this.timeoutMs };
      this.#finish(watch, () =>
        watch.reject(new BatonError(ErrorCode.ASK_TIMEOUT, message, { details })),
      );
    }, this.timeoutMs);
    watch.timers.push(timeout);
    // Already processed (a message sent again): no feed record will come for it.
    this.#claimedOutcome(messageId)
      .then((record) => {
        if (record && settles(record) && !watch.awaiting) {
          this.#finish(watch, () => watch.resolve(record));
        }
      })
      .catch(() => {})
      .finally(() => this.#polls && this.#poll(watch, 20));
    return {
      record: committed,
      sentAt: (at) => {
        watch.sentAt = at;
      },
      cancel: () => this.#finish(watch, () => {}),
    };
  }

  /** Stops listening and ends every wait (they never settle). */
  close(): void {
    for (const unsubscribe of this.#unsubscribe.splice(0)) unsubscribe();
    for (const watches of [...this.#watches.values()]) {
      for (const watch of watches) this.#finish(watch, () => {});
    }
  }

  /**
   * The outcome of a message sent before under its key, read from the send its key's claim
   * names, before this send's `sentAt` is known. A key nobody claimed has no outcome yet, and
   * no page is read for it: a frame must not make the store walk a busy actor's pages. (On a
   * store that reads no claims, through a bounded count of pages from any time.)
   */
  async #claimedOutcome(messageId: string): Promise<IdempotencyRecord | undefined> {
    if (!this.store.readClaim)
      return this.store.readIdempotency(messageId, undefined, BOUNDED_READ);
    const claim = await this.store.readClaim(messageId);
    if (!claim) return undefined;
    return this.store.readIdempotency(messageId, claimedFrom(claim), BOUNDED_READ);
  }

  #poll(watch: Watch, delayMs: number): void {
    if (watch.done || watch.awaiting) return;
    const timer = setTimeout(async () => {
      // Until the send says when it was sent, its claim's read has answered (see wait).
      const record =
        watch.sentAt === undefined
          ? undefined
          : await this.store
              .readIdempotency(watch.messageId, watch.sentAt, BOUNDED_READ)
              .catch(() => undefined);
      if (record && watch.settles(record)) this.#committed(watch, record);
      else this.#poll(watch, Math.min(delayMs * 2, 1_000));
    }, delayMs);
    watch.timers.push(timer);
  }

  #onOutcome(record: IdempotencyRecord): void {
    for (const watch of this.#watches.get(record.key) ?? []) {
      if (watch.settles(record)) this.#committed(watch, record);
    }
  }

  /** The outcome is committed: done, or wait for the feed to deliver the actor's record. */
  #committed(watch: Watch, committed: IdempotencyRecord): void {
    if (watch.done || watch.awaiting) return;
    if (!watch.onFeed) {
      this.#finish(watch, () => watch.resolve(committed));
      return;
    }
    watch.awaiting = { record: committed, at: { ver: Number.POSITIVE_INFINITY } };
    this.store.load(watch.actorId).then(
      (record) => {
        watch.awaiting = { record: committed, at: positionOf(record) };
        this.#check(watch);
      },
      () => this.#finish(watch, () => watch.resolve(committed)),
    );
  }

  #onRecord(record: ActorRecord): void {
    const seen = this.#seen.get(record.id);
    if (seen === undefined) return;
    this.#seen.set(record.id, withNewest(seen, positionOf(record)));
    for (const watch of [...(this.#byActor.get(record.id) ?? [])]) this.#check(watch);
  }

  #check(watch: Watch): void {
    const awaiting = watch.awaiting;
    if (!awaiting || watch.done) return;
    const { at } = awaiting;
    const seen = this.#seen.get(watch.actorId) ?? [];
    if (at.ver === 0 || seen.some((p) => p.life === at.life && p.ver >= at.ver)) {
      this.#finish(watch, () => watch.resolve(awaiting.record));
    }
  }

  #finish(watch: Watch, settle: () => void): void {
    if (watch.done) return;
    watch.done = true;
    for (const timer of watch.timers) clearTimeout(timer);
    remove(this.#watches, watch.messageId, watch);
    if (watch.onFeed && remove(this.#byActor, watch.actorId, watch))
      this.#seen.delete(watch.actorId);
    settle();
  }
}

function add<T>(map: Map<string, Set<T>>, key: string, value: T): void {
  const set = map.get(key) ?? new Set<T>();
  set.add(value);
  map.set(key, set);
}

/** Removes `value`; true if it was the key's last. */
function remove<T>(map: Map<string, Set<T>>, key: string, value: T): boolean {
  const set = map.get(key);
  if (!set?.delete(value) || set.size > 0) return false;
  map.delete(key);
  return true;
}
