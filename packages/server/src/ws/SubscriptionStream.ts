import type { BatonError, SerializedError } from '@baton/core';
import {
  type JsonValue,
  PROTOCOL_VERSION,
  type ResumePoint,
  resumeAnswer,
  type ServerMessage,
  type VersionedValue,
} from '@baton/protocol';
import type { QueryResult, QueryUpdate, ResumeAnswer } from '../QueryUpdate.ts';
import type { QuerySubscription } from '../SubscribeRequest.ts';
import type { GatedStream, PushGate } from './PushGate.ts';
import type { ResultCache } from './ResultCache.ts';
import { idTail, SharedFrames } from './SharedFrames.ts';

interface Waiter {
  readonly version: number;
  readonly resolve: () => void;
}

/**
 * One client subscription's flow of pushes over one connection: at most one unacknowledged push
 * (`result`, or `patch` against the value the client acknowledged); results that arrive
 * meanwhile are held, and only the newest goes out when the ack comes (intermediates are
 * skipped). Errors go out at once and replace what was held. A resumed subscription first sends
 * the resume answer — `unchanged`, `patch` (against the value the client holds, found by its
 * hash in the {@link ResultCache}) or `result` — and ignores updates until then. A result's
 * frames come from {@link SharedFrames}, encoded once for every stream that shares `frames`;
 * `push` is then given the frame's text (the shared head and this subscription's id) instead of
 * the frame. `push` is told the version a `result` or `patch` awaits the ack of, for a
 * connection that counts acks by frame (`baton.v1.received`). While the connection's `gate` is
 * shut (its client leaves too much unread), the newest result is held as for an ack, and goes
 * out when the gate releases the stream.
 *
 * @example
 * const stream = new SubscriptionStream('s1', (frame) => connection.send(frame), cache);
 * stream.attach(engine.subscribe(request, (update) => stream.onUpdate(update)));
 * stream.ack(3); // the client acknowledged version 3: the newest held result goes out
 */
export class SubscriptionStream implements GatedStream {
  #subscription: QuerySubscription | undefined;
  /** The value the client acknowledged (or was told is current): the base of patches. */
  #base: VersionedValue | undefined;
  /** The push awaiting its ack. */
  #inFlight: VersionedValue | undefined;
  #held: QueryResult | undefined;
  #resuming = false;
  #sentVersion = 0;
  #waiters: Waiter[] = [];
  #closed = false;
  /** The end of this subscription's frames, after a shared frame's head. */
  readonly #tail: string;

  constructor(
    readonly id: string,
    private readonly push: (frame: ServerMessage | string, awaiting?: number) => void,
    private readonly cache: ResultCache,
    private readonly frames: SharedFrames = new SharedFrames(),
    private readonly gate?: PushGate,
  ) {
    this.#tail = idTail(id);
  }

  get subscription(): QuerySubscription | undefined {
    return this.#subscription;
  }

  /** The version of the push awaiting its ack, if any. */
  get awaiting(): number | undefined {
    return this.#inFlight?.version;
  }

  /** The newest version this client was sent (in flight or acknowledged). */
  get sentVersion(): number {
    return this.#sentVersion;
  }

  attach(subscription: QuerySubscription): void {
    this.#subscription = subscription;
  }

  /** Holds updates back until {@link resumed} sends the answer to the client's resume point. */
  beginResume(): void {
    this.#resuming = true;
  }

  /** Sends the answer to a resume, then whatever newer the instance has. */
  resumed(client: ResumePoint, answer: ResumeAnswer): void {
    if (this.#closed) return;
    this.#resuming = false;
    const instance = this.#subscription!.instance;
    let sent: string | undefined;
    if (answer === 'unchanged') {
      const current = this.#subscription!.current();
      const value = this.cache.lookup(instance, client.hash) ?? resultValue(current, client.hash);
      if (value !== undefined) {
        const version = current?.kind === 'result' ? current.version : client.version;
        this.#base = { version, hash: client.hash, value };
        this.push({
          v: PROTOCOL_VERSION,
          type: 'unchanged',
          id: this.id,
          version,
          hash: client.hash,
        });
        this.#sent(version);
        sent = client.hash;
      }
    } else if (answer.kind === 'error') {
      this.#error(answer.error);
    } else {
      const held = this.cache.lookup(instance, client.hash);
      const previous = held === undefined ? undefined : { ...client, value: held };
      const current = {
        version: answer.version,
        hash: answer.hash,
        value: answer.value as JsonValue,
      };
      this.cache.remember(instance, answer.hash, answer.value);
      this.#inFlight = current;
      const frame = resumeAnswer(
        { lastVersion: client.version, hash: client.hash },
        current,
        previous,
      );
      this.push({ ...frame, id: this.id }, current.version);
      this.#sent(current.version);
      sent = answer.hash;
    }
    const now = this.#subscription!.current();
    if (now && now !== answer && !(now.kind === 'result' && now.hash === sent)) this.onUpdate(now);
  }

  /** The engine's listener: pushes, holds or drops the update. */
  onUpdate(update: QueryUpdate): void {
    if (this.#closed || this.#resuming) return;
    if (update.kind === 'error') {
      this.#error(update.error);
      return;
    }
    // Every subscriber of the instance gets the same result: it is cached once for all.
    if (this.frames.firstSight(update)) {
      this.cache.remember(this.#subscription!.instance, update.hash, update.value);
    }
    if (update.version <= this.#sentVersion) return;
    if (this.#inFlight) this.#held = update;
    else this.#offer(update);
  }

  /** The client holds `version`: the newest held result, if any, goes out now. */
  ack(version: number): void {
    if (this.#closed || this.#inFlight?.version !== version) return;
    this.#base = this.#inFlight;
    this.#inFlight = undefined;
    const held = this.#held;
    this.#held = undefined;
    if (held && held.version > this.#base.version) this.#offer(held);
  }

  /** The connection's gate opened: the result held for it goes out, unless one awaits its ack. */
  release(): void {
    const held = this.#held;
    if (this.#closed || this.#inFlight || !held) return;
    this.#held = undefined;
    this.#offer(held);
  }

  /**
   * Resolves once this client has been sent version `version` or a newer one, an error, or the
   * stream closed: read-your-writes waits on it.
   */
  whenSent(version: number): Promise<void> {
    if (this.#closed || this.#sentVersion >= version) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ version, resolve }));
  }

  /** Stops the stream and its engine subscription. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#held = undefined;
    this.#subscription?.unsubscribe();
    for (const waiter of this.#waiters.splice(0)) waiter.resolve();
  }

  /** Fails the subscription with a host-side problem (a resume that threw), as the client is told it. */
  fail(error: BatonError): void {
    if (this.#closed) return;
    this.#resuming = false;
    this.#error(error.toJSON());
  }

  /** Delivers `result` now, or holds it until the connection's gate opens. */
  #offer(result: QueryResult): void {
    if (!this.gate || this.gate.open()) {
      this.#deliver(result);
      return;
    }
    this.#held = result;
    this.gate.wait(this);
  }

  #deliver(result: QueryResult): void {
    // The result is the value sent and then the next frame's base: one object for every stream
    // of the instance, so that the next result's frames are found by identity.
    const current = result as QueryResult & VersionedValue;
    const shared = this.frames.of(result, this.#base);
    let awaiting: number | undefined;
    if (shared?.frame.type === 'unchanged') this.#base = current;
    else {
      this.#inFlight = current;
      awaiting = current.version;
    }
    if (shared) {
      this.push(shared.head + this.#tail, awaiting);
    } else {
      const { version, hash, value } = current;
      this.push(
        { v: PROTOCOL_VERSION, type: 'result', version, hash, value, id: this.id },
        awaiting,
      );
    }
    this.#sent(current.version);
  }

  #error(error: SerializedError): void {
    this.#held = undefined;
    this.push({ v: PROTOCOL_VERSION, type: 'error', id: this.id, error });
    for (const waiter of this.#waiters.splice(0)) waiter.resolve();
  }

  #sent(version: number): void {
    this.#sentVersion = Math.max(this.#sentVersion, version);
    if (this.#waiters.length === 0) return;
    const waiting: Waiter[] = [];
    for (const waiter of this.#waiters) {
      if (waiter.version <= this.#sentVersion) waiter.resolve();
      else waiting.push(waiter);
    }
    this.#waiters = waiting;
  }
}

function resultValue(update: QueryUpdate | undefined, hash: string): JsonValue | undefined {
  return update?.kind === 'result' && update.hash === hash
    ? (update.value as JsonValue)
    : undefined;
}
