import { type BatonError, ErrorCode } from '@baton/core';
import type { ClientMessage } from '@baton/protocol';
import { PROTOCOL_VERSION } from '@baton/protocol';
import { PENDING_STATE, type QueryState } from '../QueryState.ts';
import type { AckMode } from './Connection.ts';
import { canonicalKey } from './canonicalKey.ts';
import { type Push, QueryEntry } from './QueryEntry.ts';

/** What the table needs from the client around it. */
export interface QueryTableSettings {
  /** Sends a frame on the open socket; false (and nothing sent) otherwise. */
  readonly send: (message: ClientMessage) => boolean;
  readonly isOpen: () => boolean;
  /** How the open socket's server wants pushes acknowledged. */
  readonly acks: () => AckMode;
  /** The frames read on the open socket: what a `received` frame acknowledges. */
  readonly framesRead: () => number;
  /** A new wire id for a subscription. */
  readonly nextId: () => string;
  readonly keepAliveMs: number;
  /** The wait before subscribing again after refusal `attempt` (0 for the first) for now. */
  readonly retryDelay: (attempt: number) => number;
  readonly setTimeout: (callback: () => void, ms: number) => unknown;
  readonly clearTimeout: (handle: unknown) => void;
}

/**
 * Whether the server refused a subscribe for now, holding none: the connection's frame rate
 * (RATE_LIMITED) or its subscription cap (LIMIT_EXCEEDED naming its `limit`). A query's own
 * LIMIT_EXCEEDED (its args, or a run that read too much) is for good: the server may hold the
 * subscription still, and subscribing again would only add to it.
 */
function refusedForNow(error: BatonError): boolean {
  if (error.code === ErrorCode.RATE_LIMITED) return true;
  return error.code === ErrorCode.LIMIT_EXCEEDED && typeof error.details?.limit === 'number';
}

/**
 * The client's shared subscriptions, by (query, canonical args), and their ids on the current
 * socket. A subscription gets a new wire id on every socket (and whenever it starts over), so
 * a push for an id of an old socket finds nothing and is ignored.
 */
export class QueryTable {
  readonly #settings: QueryTableSettings;
  readonly #entries = new Map<string, QueryEntry>();
  readonly #byWireId = new Map<string, QueryEntry>();
  /** Why the connection ended for good, if it did: what a query subscribed since reports. */
  #ended: BatonError | undefined;
  /** Acks not sent yet, by wire id: the pushes of one read leave in one frame. */
  #acks = new Map<string, number>();
  /** Whether a `received` frame is due once the frames at hand are read. */
  #receivedDue = false;

  constructor(settings: QueryTableSettings) {
    this.#settings = settings;
  }

  /** The current state of (query, args); pending if nobody subscribes to it. */
  state(query: string, args: unknown): QueryState<unknown> {
    return this.#entries.get(canonicalKey(query, args))?.state ?? PENDING_STATE;
  }

  /** Adds a listener to the shared subscription of (query, args); returns its removal. */
  listen(query: string, args: unknown, listener: (state: QueryState<unknown>) => void): () => void {
    const key = canonicalKey(query, args);
    let entry = this.#entries.get(key);
    if (entry === undefined) {
      entry = new QueryEntry(key, query, args);
      this.#entries.set(key, entry);
      if (this.#ended) entry.fail(this.#ended);
      this.#subscribe(entry);
    } else if (entry.dropTimer !== undefined) {
      this.#settings.clearTimeout(entry.dropTimer);
      entry.dropTimer = undefined;
    }
    const joined = entry;
    joined.listeners.add(listener);
    if (joined.state !== PENDING_STATE) listener(joined.state);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      joined.listeners.delete(listener);
      this.#release(joined);
    };
  }

  /** A socket opened: subscribe everything again, resuming from what each holds. */
  resubscribeAll(): void {
    this.#byWireId.clear();
    this.#acks.clear(); // for the old socket's ids
    this.#receivedDue = false;
    for (const entry of this.#entries.values()) {
      this.#cancelRetry(entry);
      this.#subscribe(entry);
    }
  }

  /** Applies a push and acks it; starts the subscription over if the push does not fit. */
  push(message: Push): void {
    const entry = this.#byWireId.get(message.id);
    if (entry === undefined) return; // for a subscription since ended, or of an old socket
    if (entry.isStale(message)) return; // overtaken by a newer one: nothing to apply or ack
    if (entry.apply(message)) {
      entry.retries = 0;
      this.#ack(message.id, message.version);
      return;
    }
    this.#unsubscribe(entry);
    entry.forgetHash();
    this.#subscribe(entry);
  }

  /**
   * Acks a push once the frames at hand are read: a commit that moves several of this client's
   * queries brings several pushes together, and their acks go in one `acks` frame (one frame
   * against the connection's rate). A lone ack is an `ack`. To a server that counts (it selected
   * `baton.v1.received`, as the local host does) the frame is one `received` with the count of
   * frames read, whatever the pushes. None to a server that does not wait for acks (it selected
   * `baton.v1.unacked`, as the API Gateway host does).
   */
  #ack(id: string, version: number): void {
    const mode = this.#settings.acks();
    if (mode === 'none') return;
    if (mode === 'received') {
      if (this.#receivedDue) return;
      this.#receivedDue = true;
      this.#settings.setTimeout(() => this.#sendReceived(), 0);
      return;
    }
    const first = this.#acks.size === 0;
    this.#acks.set(id, version);
    if (first) this.#settings.setTimeout(() => this.#sendAcks(), 0);
  }

  #sendReceived(): void {
    if (!this.#receivedDue) return; // the socket changed meanwhile
    this.#receivedDue = false;
    const frames = this.#settings.framesRead();
    this.#settings.send({ v: PROTOCOL_VERSION, type: 'received', frames });
  }

  #sendAcks(): void {
    const acks = this.#acks;
    this.#acks = new Map();
    if (acks.size > 1) {
      this.#settings.send({
        v: PROTOCOL_VERSION,
        type: 'acks',
        versions: Object.fromEntries(acks),
      });
      return;
    }
    for (const [id, version] of acks) {
      this.#settings.send({ v: PROTOCOL_VERSION, type: 'ack', id, version });
    }
  }

  /** The server refused or failed subscription `id`; one refused for now is retried. */
  fail(id: string, error: BatonError): void {
    const entry = this.#byWireId.get(id);
    if (entry === undefined) return;
    entry.fail(error);
    if (refusedForNow(error)) this.#retry(entry, error.retryAfterMs ?? 0);
  }

  /**
   * Subscribes again after the wait the server asked for, plus a growing, jittered backoff, so
   * that the subscriptions refused together do not all come back together.
   */
  #retry(entry: QueryEntry, retryAfterMs: number): void {
    if (entry.wireId !== undefined) this.#byWireId.delete(entry.wireId); // the server holds none
    entry.wireId = undefined;
    this.#cancelRetry(entry);
    const delay = retryAfterMs + this.#settings.retryDelay(entry.retries);
    entry.retries += 1;
    entry.retryTimer = this.#settings.setTimeout(() => {
      entry.retryTimer = undefined;
      if (this.#entries.get(entry.key) === entry) this.#subscribe(entry);
    }, delay);
  }

  #cancelRetry(entry: QueryEntry): void {
    if (entry.retryTimer !== undefined) this.#settings.clearTimeout(entry.retryTimer);
    entry.retryTimer = undefined;
  }

  /** Every query fails with `error`, keeping its last data (the connection's auth ended). */
  failAll(error: BatonError): void {
    for (const entry of this.#entries.values()) entry.fail(error);
  }

  /** The connection ended for good with `error`: every query, and any subscribed later, fails. */
  end(error: BatonError): void {
    this.#ended = error;
    this.failAll(error);
    this.clearTimers();
  }

  /** Cancels pending unsubscribes and retries (the client is closing). */
  clearTimers(): void {
    for (const entry of this.#entries.values()) {
      if (entry.dropTimer !== undefined) this.#settings.clearTimeout(entry.dropTimer);
      entry.dropTimer = undefined;
      this.#cancelRetry(entry);
    }
  }

  /** The last listener left: unsubscribe after `keepAliveMs`. */
  #release(entry: QueryEntry): void {
    if (entry.listeners.size > 0 || this.#entries.get(entry.key) !== entry) return;
    const { keepAliveMs } = this.#settings;
    if (keepAliveMs <= 0) {
      this.#drop(entry);
      return;
    }
    if (entry.dropTimer !== undefined) this.#settings.clearTimeout(entry.dropTimer);
    entry.dropTimer = this.#settings.setTimeout(() => this.#drop(entry), keepAliveMs);
  }

  #drop(entry: QueryEntry): void {
    entry.dropTimer = undefined;
    if (entry.listeners.size > 0) return;
    this.#entries.delete(entry.key);
    this.#cancelRetry(entry);
    this.#unsubscribe(entry);
  }

  /** Subscribes on the current socket under a new wire id (nothing while disconnected). */
  #subscribe(entry: QueryEntry): void {
    if (!this.#settings.isOpen()) return;
    const id = this.#settings.nextId();
    entry.wireId = id;
    this.#byWireId.set(id, entry);
    this.#settings.send(entry.subscribeFrame(id));
  }

  #unsubscribe(entry: QueryEntry): void {
    if (entry.wireId === undefined) return;
    this.#byWireId.delete(entry.wireId);
    this.#settings.send({ v: PROTOCOL_VERSION, type: 'unsubscribe', id: entry.wireId });
    entry.wireId = undefined;
  }
}
