import { setTimeout as sleep } from 'node:timers/promises';
import { awsErrorName } from '../internal/unavailable.ts';

/**
 * How pushes go out: how many at once, how fast, and how throttling is waited out.
 *
 * @example
 * const options: PushOptions = { concurrency: 64, maxPushesPerSecond: 2_000 };
 */
export interface PushOptions {
  /** `PostToConnection` calls in flight at once, per handler container. @default 32 */
  readonly concurrency?: number;
  /**
   * Calls started per second, per handler container: API Gateway's account limit (10,000/s,
   * 5,000 burst) divided by the containers that push at once. @default no pacing (throttled
   * calls are retried)
   */
  readonly maxPushesPerSecond?: number;
  /** The first pause after a throttled call; it doubles (with jitter) up to `maxBackoffMs`. @default 50 */
  readonly backoffMs?: number;
  /** @default 2,000 */
  readonly maxBackoffMs?: number;
}

/**
 * The `message` of the stream function's log line, once per invocation that met throttling, with
 * `throttled`: how many `PostToConnection` calls were refused and retried. A metric filter on it
 * counts the pushes the account's API Gateway limit held back (API Gateway publishes no metric
 * of its own for them).
 */
export const PUSHES_THROTTLED_LOG = 'pushes throttled and retried';

/** What a post ended with. */
export type PostOutcome = 'sent' | 'gone' | 'failed';

/** An error meaning "too many requests": the call is retried after a pause, never dropped. */
export function isThrottled(error: unknown): boolean {
  const name = awsErrorName(error);
  if (
    name === 'LimitExceededException' ||
    name === 'TooManyRequestsException' ||
    name === 'ThrottlingException'
  ) {
    return true;
  }
  const status = (error as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode;
  return status === 429;
}

interface Entry {
  readonly id: string;
  readonly connectionId: string;
  /** The pieces to post, in order; replaced by a newer update while the entry waits. */
  pieces: readonly string[];
  /** The callers waiting for this entry (and for the updates it absorbed). */
  readonly settled: ((outcome: PostOutcome) => void)[];
  running: boolean;
  /** A newer update that came while this one was being posted: it goes out next. */
  next: { pieces: readonly string[]; settled: ((outcome: PostOutcome) => void)[] } | undefined;
}

/**
 * The pushes of one handler invocation: at most `concurrency` calls in flight, paced to
 * `maxPushesPerSecond`, a throttled call retried after a growing pause until it goes through.
 * Pushes under one key (a subscription of a connection) coalesce: an update that arrives while
 * an older one waits replaces it, and one that arrives while the older one is being posted goes
 * out right after it — so the newest always arrives and intermediates may be skipped. A gone
 * connection fails its waiting pushes at once and is reported once.
 *
 * @example
 * const queue = new PushQueue(post, options, { gone: (id) => cleanUp(id), failed: log });
 * await queue.push('abc=', 'R#s1', [text]);
 */
export class PushQueue {
  readonly #entries = new Map<string, Entry>();
  readonly #waiting: Entry[] = [];
  readonly #gone = new Set<string>();
  readonly #concurrency: number;
  readonly #interval: number;
  readonly #backoffMs: number;
  readonly #maxBackoffMs: number;
  #active = 0;
  #throttled = 0;
  #nextStart = 0;
  #unique = 0;

  constructor(
    private readonly post: (connectionId: string, piece: string) => Promise<void>,
    options: PushOptions,
    private readonly report: {
      /** The connection is gone (reported once): remove it from the registry. */
      readonly gone: (connectionId: string) => void;
      /** A call failed for another reason than throttling or a gone connection. */
      readonly failed: (connectionId: string, error: unknown) => void;
    },
  ) {
    this.#concurrency = Math.max(1, options.concurrency ?? 32);
    this.#interval = options.maxPushesPerSecond ? 1_000 / options.maxPushesPerSecond : 0;
    this.#backoffMs = options.backoffMs ?? 50;
    this.#maxBackoffMs = options.maxBackoffMs ?? 2_000;
  }

  /** The calls refused as throttled so far (each retried). */
  get throttledCalls(): number {
    return this.#throttled;
  }

  /**
   * Posts `pieces` (one frame's text, or its chunks in order) to a connection; `key` names what
   * a newer push replaces (none: never coalesced). Resolves when the push, or the newer one that
   * replaced it, is sent or cannot be.
   */
  push(
    connectionId: string,
    key: string | undefined,
    pieces: readonly string[],
  ): Promise<PostOutcome> {
    if (this.#gone.has(connectionId)) return Promise.resolve('gone');
    const id = `${connectionId}\u0000${key ?? `#${this.#unique++}`}`;
    return new Promise((resolve) => {
      const entry = this.#entries.get(id);
      if (entry?.running) {
        if (entry.next) {
          entry.next.pieces = pieces;
          entry.next.settled.push(resolve);
        } else {
          entry.next = { pieces, settled: [resolve] };
        }
      } else if (entry) {
        entry.pieces = pieces;
        entry.settled.push(resolve);
      } else {
        const fresh: Entry = {
          id,
          connectionId,
          pieces,
          settled: [resolve],
          running: false,
          next: undefined,
        };
        this.#entries.set(id, fresh);
        this.#waiting.push(fresh);
        this.#pump();
      }
    });
  }

  #pump(): void {
    while (this.#active < this.#concurrency && this.#waiting.length > 0) {
      const entry = this.#waiting.shift()!;
      this.#active++;
      void this.#run(entry).finally(() => {
        this.#active--;
        this.#pump();
      });
    }
  }

  async #run(entry: Entry): Promise<void> {
    for (;;) {
      entry.running = true;
      const outcome = await this.#postAll(entry.connectionId, entry.pieces);
      for (const settle of entry.settled.splice(0)) settle(outcome);
      const next = entry.next;
      entry.next = undefined;
      if (!next) break;
      if (outcome === 'gone') {
        for (const settle of next.settled) settle('gone');
        break;
      }
      entry.pieces = next.pieces;
      entry.settled.push(...next.settled);
    }
    this.#entries.delete(entry.id);
  }

  async #postAll(connectionId: string, pieces: readonly string[]): Promise<PostOutcome> {
    for (const piece of pieces) {
      const outcome = await this.#post(connectionId, piece);
      if (outcome !== 'sent') return outcome;
    }
    return 'sent';
  }

  async #post(connectionId: string, piece: string): Promise<PostOutcome> {
    let pause = this.#backoffMs;
    for (;;) {
      if (this.#gone.has(connectionId)) return 'gone';
      await this.#pace();
      try {
        await this.post(connectionId, piece);
        return 'sent';
      } catch (error) {
        if (awsErrorName(error) === 'GoneException') {
          if (!this.#gone.has(connectionId)) {
            this.#gone.add(connectionId);
            this.report.gone(connectionId);
          }
          return 'gone';
        }
        if (!isThrottled(error)) {
          this.report.failed(connectionId, error);
          return 'failed';
        }
        this.#throttled++;
        // Full jitter: throttled callers spread out instead of coming back together.
        await sleep(Math.random() * pause);
        pause = Math.min(pause * 2, this.#maxBackoffMs);
      }
    }
  }

  /** Waits for this call's slot under `maxPushesPerSecond`. */
  async #pace(): Promise<void> {
    if (this.#interval === 0) return;
    const now = performance.now();
    const at = Math.max(now, this.#nextStart);
    this.#nextStart = at + this.#interval;
    if (at > now) await sleep(at - now);
  }
}
