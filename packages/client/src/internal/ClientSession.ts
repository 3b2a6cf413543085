/**
 * What a `BatonClient` runs on: its options checked and their defaults filled in, the one
 * connection, the sends and asks in flight (`RequestTable`) and the live queries (`QueryTable`),
 * and what each thing the connection tells does to them — a socket opened, a server frame, the
 * server ending the connection's auth. `BatonClient` is the typed API over it.
 */
import { BatonError, ErrorCode, errorFromJSON } from '@baton/core';
import type { ServerMessage } from '@baton/protocol';
import type { BatonClientOptions } from '../BatonClientOptions.ts';
import type { ConnectionState } from '../ConnectionState.ts';
import { notSentError, otherUserError, unansweredError } from './authEnd.ts';
import { backoffDelay } from './backoffDelay.ts';
import { Connection } from './Connection.ts';
import { browserPageEvents } from './PageEvents.ts';
import { QueryTable } from './QueryTable.ts';
import { RequestTable } from './RequestTable.ts';
import { randomId } from './randomId.ts';

/** A `send` or `ask` frame, as it goes out. */
type RequestFrame = Parameters<RequestTable['add']>[0];

export class ClientSession {
  readonly connection: Connection;
  readonly queries: QueryTable;
  readonly #requests: RequestTable;
  readonly #stateListeners = new Set<(state: ConnectionState) => void>();
  readonly #options: BatonClientOptions;
  readonly #setTimeout: (callback: () => void, ms: number) => unknown;
  readonly #clearTimeout: (handle: unknown) => void;
  readonly #prefix: string;
  #counter = 0;
  /** Why the connection ended for good when the server ended its auth (a fixed token). */
  #authEnded: BatonError | undefined;

  constructor(options: BatonClientOptions) {
    const WebSocket =
      options.WebSocket ??
      (globalThis as { WebSocket?: BatonClientOptions['WebSocket'] }).WebSocket;
    if (WebSocket === undefined) {
      throw new BatonError(
        ErrorCode.INVALID_ARGUMENT,
        'no WebSocket here: pass one as options.WebSocket (e.g. `import { WebSocket } from "ws"`)',
      );
    }
    if (!/^(wss?|https?):\/\/[^/]/i.test(String(options.url))) {
      throw new BatonError(
        ErrorCode.INVALID_ARGUMENT,
        `url must be a ws:// or wss:// URL, got ${JSON.stringify(options.url)}`,
      );
    }
    this.#options = options;
    const timers = options.timers;
    this.#setTimeout = timers
      ? (callback, ms) => timers.setTimeout(callback, ms)
      : (callback, ms) => setTimeout(callback, ms);
    this.#clearTimeout = timers
      ? (handle) => timers.clearTimeout(handle)
      : (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>);
    const random = options.random ?? Math.random;
    const minMs = options.reconnect?.minMs ?? 1_000;
    const maxMs = options.reconnect?.maxMs ?? 16_000;
    this.#prefix = random().toString(36).slice(2, 10);
    this.#requests = new RequestTable(this.#clearTimeout);
    this.queries = new QueryTable({
      send: (message) => this.connection.send(message),
      isOpen: () => this.connection.state === 'open',
      acks: () => this.connection.acks,
      framesRead: () => this.connection.framesRead,
      nextId: () => this.nextId('s'),
      keepAliveMs: options.keepAliveMs ?? 1_000,
      retryDelay: (attempt) => backoffDelay(attempt, minMs, maxMs, random),
      setTimeout: this.#setTimeout,
      clearTimeout: this.#clearTimeout,
    });
    this.connection = new Connection(
      {
        url: options.url,
        token: options.token,
        WebSocket,
        minMs,
        maxMs,
        // Longer than a refusal, or a crash on the first frames, takes to close a socket it
        // just opened; shorter than any real session.
        stableMs: options.reconnect?.stableMs ?? 5_000,
        pingMs: options.pingMs ?? 5 * 60_000,
        pongTimeoutMs: options.pongTimeoutMs ?? 30_000,
        maxConnectionMs: options.maxConnectionMs ?? 110 * 60_000,
        random,
        setTimeout: this.#setTimeout,
        clearTimeout: this.#clearTimeout,
        page: browserPageEvents(),
      },
      {
        onOpen: () => this.#onOpen(),
        onMessage: (message) => this.#onMessage(message),
        onState: (state) => {
          for (const listener of [...this.#stateListeners]) listener(state);
        },
        onError: (error) => this.#options.onError?.(error),
        onAuthEnded: (error, final) => this.#onAuthEnded(error, final),
      },
    );
  }

  /** How long an ask waits for its reply unless it says otherwise. */
  get askTimeoutMs(): number {
    return this.#options.askTimeoutMs ?? 30_000;
  }

  /** See `BatonClient.subscribeConnectionState`. */
  subscribeConnectionState(listener: (state: ConnectionState) => void): () => void {
    this.#stateListeners.add(listener);
    return () => {
      this.#stateListeners.delete(listener);
    };
  }

  /**
   * Sends `frame`, settled by its answer; after `timeoutMs` without one it fails (see
   * {@link timedOut}). Waits while disconnected (see `#onOpen`); refused at once once the client
   * is closed.
   */
  request(frame: RequestFrame, timeoutMs: number | undefined): Promise<unknown> {
    if (this.#authEnded) return Promise.reject(notSentError(this.#authEnded));
    if (this.connection.state === 'closed') {
      return Promise.reject(new BatonError(ErrorCode.UNAVAILABLE, 'the client was closed'));
    }
    const settled = this.#requests.add(frame, this.connection.subject);
    if (timeoutMs !== undefined) {
      const timer = this.#setTimeout(() => {
        const sent = this.#requests.wasSent(frame.requestId);
        this.#requests.fail(
          frame.requestId,
          timedOut(frame, timeoutMs, sent, this.connection.state),
        );
      }, timeoutMs);
      this.#requests.setTimer(frame.requestId, timer);
    }
    if (this.connection.send(frame)) this.#requests.markSent(frame.requestId);
    return settled;
  }

  /** See `BatonClient.close`. */
  close(): void {
    if (this.connection.state === 'closed') return;
    this.connection.close();
    this.#requests.failAll(
      (frame) =>
        new BatonError(
          ErrorCode.UNAVAILABLE,
          `the client was closed before ${frame.type} ${frame.idempotencyKey} was answered; it may or may not have been applied: ${frame.type} it again with the same idempotencyKey, from another client`,
          { details: { idempotencyKey: frame.idempotencyKey } },
        ),
    );
    this.queries.clearTimers();
  }

  /** A new wire id: of a subscription (`s`) or a request (`r`). */
  nextId(kind: 's' | 'r'): string {
    this.#counter += 1;
    return `${kind}${this.#counter.toString(36)}-${this.#prefix}`;
  }

  /** A default idempotency key. */
  newKey(): string {
    return randomId(this.#options.random ?? Math.random);
  }

  #onOpen(): void {
    this.queries.resubscribeAll();
    // What was made as another user fails: the page signed someone else in meanwhile.
    const subject = this.connection.subject ?? '';
    const frames = this.#requests.resend(subject, (frame, madeAs) =>
      otherUserError(frame, madeAs, subject),
    );
    for (const frame of frames) {
      if (this.connection.send(frame)) this.#requests.markSent(frame.requestId);
    }
  }

  /**
   * The server refused or expired the token: every query shows it. Sends and asks in flight stay,
   * to go out again with their keys once a fresh token connects; if none can (`final`), they fail
   * saying how to retry safely.
   */
  #onAuthEnded(error: BatonError, final: boolean): void {
    if (!final) {
      this.queries.failAll(error);
      return;
    }
    this.#authEnded = error;
    this.queries.end(error);
    this.#requests.failAll((frame) => unansweredError(frame, error));
  }

  #onMessage(message: ServerMessage): void {
    switch (message.type) {
      case 'result':
      case 'patch':
      case 'unchanged':
        this.queries.push(message);
        return;
      case 'error': {
        const error = errorFromJSON(message.error);
        if (message.id !== undefined) this.queries.fail(message.id, error);
        else if (message.requestId === undefined || !this.#requests.answer(message)) {
          this.#options.onError?.(error);
        }
        return;
      }
      case 'accepted':
      case 'reply':
      case 'visible':
        this.#requests.answer(message);
        return;
      default:
        return;
    }
  }
}

/**
 * Why a request got no answer within `timeoutMs`. One that never went out (`sent` false: the
 * client had no connection all along) was not applied, and goes out no more: UNAVAILABLE, to make
 * again once connected. One that went out may have been: an ask's ASK_TIMEOUT, a send's
 * TIMED_OUT, saying the key under which making it again is the same message.
 */
function timedOut(
  frame: RequestFrame,
  timeoutMs: number,
  sent: boolean,
  state: ConnectionState,
): BatonError {
  const what = `${frame.type} "${frame.name}" to ${frame.to}`;
  const details = { messageId: frame.idempotencyKey, timeoutMs, sent };
  if (!sent) {
    return new BatonError(
      ErrorCode.UNAVAILABLE,
      `${what} was not sent within ${timeoutMs} ms: the client had no connection to the server (it is ${state}), so it was not applied, and it goes out no more: ${frame.type} it again once connected`,
      { details },
    );
  }
  const again = `${frame.type} again with { idempotencyKey: ${JSON.stringify(frame.idempotencyKey)} }`;
  return frame.type === 'ask'
    ? new BatonError(
        ErrorCode.ASK_TIMEOUT,
        `no reply to ${what} within ${timeoutMs} ms; it may still be processed: ${again} to get its outcome`,
        { details },
      )
    : new BatonError(
        ErrorCode.TIMED_OUT,
        `no answer to ${what} within ${timeoutMs} ms; it may have been accepted: ${again}, which makes the two one message`,
        { details },
      );
}
