import {
  type ActorRef,
  type AnyActorDefinition,
  type AnyQueryDefinition,
  type AnyWorkflowDefinition,
  type ArgsOf,
  BatonError,
  ErrorCode,
  errorFromJSON,
  type InputOf,
  type MessageName,
  type PayloadOf,
  type ReplyOf,
  type ResultOf,
  type WorkflowRefOf,
} from '@baton/core';
import type { ServerMessage } from '@baton/protocol';
import { PROTOCOL_VERSION } from '@baton/protocol';
import type { BatonClientOptions } from './BatonClientOptions.ts';
import type { ClientAskOptions, ClientSendOptions } from './ClientRequestOptions.ts';
import type { ConnectionState } from './ConnectionState.ts';
import { notSentError, otherUserError, unansweredError } from './internal/authEnd.ts';
import { backoffDelay } from './internal/backoffDelay.ts';
import { Connection } from './internal/Connection.ts';
import { browserPageEvents } from './internal/PageEvents.ts';
import { QueryTable } from './internal/QueryTable.ts';
import { RequestTable } from './internal/RequestTable.ts';
import { randomId } from './internal/randomId.ts';
import type { QueryListener, QueryObserver, QueryRef } from './QueryObserver.ts';
import { PENDING_STATE, type QueryState } from './QueryState.ts';

export type { ClientAskOptions, ClientSendOptions } from './ClientRequestOptions.ts';

/**
 * The framework-free Baton client: live queries and sends over one WebSocket that reconnects
 * by itself. Each (query, args) is one shared subscription however many listeners it has; its
 * state keeps stable references while the result does not change, and resumes after a
 * reconnect with the version and hash it holds (answered `unchanged`, a patch, or the full
 * value). Sends and asks in flight go out again after a reconnect with the same request id and
 * idempotency key, so each is accepted once — but not as another user: one made while the
 * client was connected with a JWT of one `sub` that finds it reconnected with another user's
 * token rejects (`UNAUTHENTICATED`) instead. A token that is not a JWT names no user the client can compare,
 * so a page that signs users out and in with such tokens should `close()` its client at
 * sign-out and create another.
 *
 * @example
 * const client = new BatonClient({ url: 'ws://127.0.0.1:8787', token: 'alice' });
 * const stop = client.subscribe(balance, { account: 'alice' }, (state) => {
 *   if (state.status === 'success') console.log('balance', state.data);
 * });
 * await client.send(Account.ref('alice'), 'deposit', { amount: 5 }, { visible: true });
 * stop();
 * client.close();
 */
export class BatonClient {
  readonly #connection: Connection;
  readonly #requests: RequestTable;
  readonly #queries: QueryTable;
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
    this.#queries = new QueryTable({
      send: (message) => this.#connection.send(message),
      isOpen: () => this.#connection.state === 'open',
      acks: () => this.#connection.acks,
      framesRead: () => this.#connection.framesRead,
      nextId: () => this.#nextId('s'),
      keepAliveMs: options.keepAliveMs ?? 1_000,
      retryDelay: (attempt) => backoffDelay(attempt, minMs, maxMs, random),
      setTimeout: this.#setTimeout,
      clearTimeout: this.#clearTimeout,
    });
    this.#connection = new Connection(
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

  /**
   * Where the connection stands: `connecting`, `open`, `reconnecting` or `closed`.
   *
   * @example
   * if (client.connectionState !== 'open') showOfflineBadge();
   */
  get connectionState(): ConnectionState {
    return this.#connection.state;
  }

  /**
   * Calls `listener` with each new connection state; returns a function that stops it.
   *
   * @example
   * const stop = client.subscribeConnectionState((state) => console.log('connection', state));
   */
  subscribeConnectionState(listener: (state: ConnectionState) => void): () => void {
    this.#stateListeners.add(listener);
    return () => {
      this.#stateListeners.delete(listener);
    };
  }

  /**
   * Subscribes `listener` to a live query. Listeners of the same query and args (compared as
   * canonical JSON) share one subscription; a listener joining one that already has a state is
   * called with it at once. Returns a function that removes the listener; the subscription ends
   * `keepAliveMs` after its last listener left.
   *
   * @example
   * const stop = client.subscribe(balance, { account: 'alice' }, (state) => {
   *   if (state.status === 'error') console.warn(state.error.code, state.data); // last good data
   * });
   */
  subscribe<Q extends AnyQueryDefinition>(
    query: Q,
    args: ArgsOf<Q>,
    listener: QueryListener<ResultOf<Q>>,
  ): () => void;
  /** By name: `T` is what you know the query yields. */
  subscribe<T = unknown>(query: string, args: unknown, listener: QueryListener<T>): () => void;
  subscribe(query: QueryRef, args: unknown, listener: QueryListener<unknown>): () => void {
    // A wrapper per call: the same function subscribed twice is two listeners.
    return this.#queries.listen(nameOf(query), args, (state) => listener(state));
  }

  /**
   * A live query's current state, without subscribing (pending if nobody subscribes to it).
   *
   * @example
   * const { data } = client.getQueryState(balance, { account: 'alice' });
   */
  getQueryState<Q extends AnyQueryDefinition>(query: Q, args: ArgsOf<Q>): QueryState<ResultOf<Q>>;
  getQueryState<T = unknown>(query: string, args: unknown): QueryState<T>;
  getQueryState(query: QueryRef, args: unknown): QueryState<unknown> {
    return this.#queries.state(nameOf(query), args);
  }

  /**
   * A handle on one live query for `useSyncExternalStore`-style consumers; `'skip'` gives one
   * that stays pending and subscribes to nothing.
   *
   * @example
   * const observer = client.observe(balance, { account: 'alice' });
   * const stop = observer.subscribe(() => render(observer.getSnapshot()));
   */
  observe<Q extends AnyQueryDefinition>(
    query: Q,
    args: ArgsOf<Q> | 'skip',
  ): QueryObserver<ResultOf<Q>>;
  observe<T = unknown>(query: string, args: unknown): QueryObserver<T>;
  observe(query: QueryRef, args: unknown): QueryObserver<unknown> {
    if (args === 'skip') return SKIPPED;
    const name = nameOf(query);
    return {
      subscribe: (onChange) => this.#queries.listen(name, args, () => onChange()),
      getSnapshot: () => this.#queries.state(name, args),
    };
  }

  /**
   * Sends a message to an actor. Resolves with its message id once the server accepted it, or
   * with `visible: true` once its commit shows in this client's subscribed queries; rejects
   * with a BatonError carrying the server's `code` (e.g. INVALID_PAYLOAD). While disconnected
   * it waits, and goes out with the same request id and idempotency key after a reconnect.
   *
   * @example
   * const { messageId } = await client.send(Account.ref('alice'), 'deposit', { amount: 5 });
   */
  send<Def extends AnyActorDefinition, Name extends MessageName<Def>>(
    to: ActorRef<Def>,
    name: Name,
    payload: PayloadOf<Def, Name>,
    options: ClientSendOptions = {},
  ): Promise<{ messageId: string }> {
    const frame = {
      v: PROTOCOL_VERSION,
      type: 'send',
      requestId: this.#nextId('r'),
      to: to.id,
      name,
      payload,
      idempotencyKey: options.idempotencyKey ?? this.#newKey(),
      ...(options.visible ? { visible: true } : {}),
      ...(options.traceparent === undefined ? {} : { traceparent: options.traceparent }),
    } as const;
    return this.#request(frame, undefined) as Promise<{ messageId: string }>;
  }

  /**
   * Starts workflow instance `id` with `input` (the workflow must be public, and its
   * `authorize` allow this client's caller to start it): resolves with its ref once the server
   * accepted the start — follow it with `useWorkflow(ref)` or the `workflowStatus` query.
   * Idempotent per id: an instance that exists is left as it is.
   *
   * @example
   * const order = await client.start(Fulfil, 'order-17', { orderId: 'o-17', amount: 30 });
   */
  async start<W extends AnyWorkflowDefinition>(
    workflow: W,
    id: string,
    input: InputOf<W>,
    options: ClientSendOptions = {},
  ): Promise<WorkflowRefOf<W>> {
    const ref = workflow.ref(id) as WorkflowRefOf<W>;
    await this.send(ref as ActorRef, 'start' as never, { input } as never, options);
    return ref;
  }

  /**
   * Sends a message and resolves with the handler's reply; rejects with a BatonError carrying
   * `code` (REJECTED for a TerminalError, ASK_TIMEOUT after `timeoutMs`, …). Asking again with
   * the same idempotency key returns the first outcome.
   *
   * @example
   * const balance = await client.ask(Account.ref('alice'), 'balance', {});
   */
  ask<Def extends AnyActorDefinition, Name extends MessageName<Def>>(
    to: ActorRef<Def>,
    name: Name,
    payload: PayloadOf<Def, Name>,
    options: ClientAskOptions = {},
  ): Promise<ReplyOf<Def, Name>> {
    const frame = {
      v: PROTOCOL_VERSION,
      type: 'ask',
      requestId: this.#nextId('r'),
      to: to.id,
      name,
      payload,
      idempotencyKey: options.idempotencyKey ?? this.#newKey(),
      ...(options.traceparent === undefined ? {} : { traceparent: options.traceparent }),
    } as const;
    const timeoutMs = options.timeoutMs ?? this.#options.askTimeoutMs ?? 30_000;
    return this.#request(frame, timeoutMs) as Promise<ReplyOf<Def, Name>>;
  }

  /**
   * Reconnects at once if the client is waiting to (the browser's `online` and
   * `visibilitychange` events do this by themselves); checks an open connection with a ping.
   *
   * @example
   * retryButton.onclick = () => client.reconnect();
   */
  reconnect(): void {
    this.#connection.wake();
  }

  /**
   * Closes the connection for good; sends and asks in flight reject with UNAVAILABLE, saying
   * they may have been applied (retry with the same idempotencyKey). Query states stay readable.
   *
   * @example
   * window.addEventListener('pagehide', () => client.close());
   */
  close(): void {
    if (this.#connection.state === 'closed') return;
    this.#connection.close();
    this.#requests.failAll(
      (frame) =>
        new BatonError(
          ErrorCode.UNAVAILABLE,
          `the client was closed before ${frame.type} ${frame.idempotencyKey} was answered; it may or may not have been applied: ${frame.type} it again with the same idempotencyKey, from another client`,
          { details: { idempotencyKey: frame.idempotencyKey } },
        ),
    );
    this.#queries.clearTimers();
  }

  #request(frame: Parameters<RequestTable['add']>[0], timeoutMs: number | undefined) {
    if (this.#authEnded) return Promise.reject(notSentError(this.#authEnded));
    if (this.#connection.state === 'closed') {
      return Promise.reject(new BatonError(ErrorCode.UNAVAILABLE, 'the client was closed'));
    }
    const settled = this.#requests.add(frame, this.#connection.subject);
    if (timeoutMs !== undefined) {
      const timer = this.#setTimeout(() => {
        this.#requests.fail(
          frame.requestId,
          new BatonError(
            ErrorCode.ASK_TIMEOUT,
            `no reply to ${frame.idempotencyKey} within ${timeoutMs} ms; it may still be processed: ask again with the same idempotencyKey to get its outcome`,
            { details: { messageId: frame.idempotencyKey, timeoutMs } },
          ),
        );
      }, timeoutMs);
      this.#requests.setTimer(frame.requestId, timer);
    }
    this.#connection.send(frame);
    return settled;
  }

  #onOpen(): void {
    this.#queries.resubscribeAll();
    // What was made as another user fails: the page signed someone else in meanwhile.
    const subject = this.#connection.subject ?? '';
    const frames = this.#requests.resend(subject, (frame, madeAs) =>
      otherUserError(frame, madeAs, subject),
    );
    for (const frame of frames) this.#connection.send(frame);
  }

  /**
   * The server refused or expired the token: every query shows it. Sends and asks in flight stay,
   * to go out again with their keys once a fresh token connects; if none can (`final`), they fail
   * saying how to retry safely.
   */
  #onAuthEnded(error: BatonError, final: boolean): void {
    if (!final) {
      this.#queries.failAll(error);
      return;
    }
    this.#authEnded = error;
    this.#queries.end(error);
    this.#requests.failAll((frame) => unansweredError(frame, error));
  }

  #onMessage(message: ServerMessage): void {
    switch (message.type) {
      case 'result':
      case 'patch':
      case 'unchanged':
        this.#queries.push(message);
        return;
      case 'error': {
        const error = errorFromJSON(message.error);
        if (message.id !== undefined) this.#queries.fail(message.id, error);
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

  #nextId(kind: 's' | 'r'): string {
    this.#counter += 1;
    return `${kind}${this.#counter.toString(36)}-${this.#prefix}`;
  }

  #newKey(): string {
    return randomId(this.#options.random ?? Math.random);
  }
}

function nameOf(query: QueryRef): string {
  return typeof query === 'string' ? query : query.name;
}

const SKIPPED: QueryObserver<unknown> = Object.freeze({
  subscribe: () => () => {},
  getSnapshot: () => PENDING_STATE,
});
