import type {
  ActorRef,
  AnyActorDefinition,
  AnyPublicQueryDefinition,
  AnyWorkflowDefinition,
  ArgsOf,
  EventInput,
  EventName,
  EventSchemas,
  InputOf,
  JsonOf,
  PayloadOf,
  PublicMessageName,
  ReplyOf,
  ResultOf,
  WorkflowRef,
  WorkflowRefOf,
  WorkflowSummary,
} from '@baton/core';
import { PROTOCOL_VERSION } from '@baton/protocol';
import type { BatonClientOptions } from './BatonClientOptions.ts';
import type { ClientAskOptions, ClientSendOptions } from './ClientRequestOptions.ts';
import type { ConnectionState } from './ConnectionState.ts';
import { ClientSession } from './internal/ClientSession.ts';
import { knownWorkflow } from './knownWorkflow.ts';
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
  /** The connection, the requests in flight and the live queries this client's API works on. */
  readonly #session: ClientSession;

  constructor(options: BatonClientOptions) {
    this.#session = new ClientSession(options);
  }

  /**
   * Where the connection stands: `connecting`, `open`, `reconnecting` or `closed`.
   *
   * @example
   * if (client.connectionState !== 'open') showOfflineBadge();
   */
  get connectionState(): ConnectionState {
    return this.#session.connection.state;
  }

  /**
   * Calls `listener` with each new connection state; returns a function that stops it.
   *
   * @example
   * const stop = client.subscribeConnectionState((state) => console.log('connection', state));
   */
  subscribeConnectionState(listener: (state: ConnectionState) => void): () => void {
    return this.#session.subscribeConnectionState(listener);
  }

  /**
   * Subscribes `listener` to a live query. Listeners of the same query and args (compared as
   * canonical JSON) share one subscription; a listener joining one that already has a state is
   * called with it at once. Returns a function that removes the listener; the subscription ends
   * `keepAliveMs` after its last listener left. A query's definition must be `public: true`:
   * the server refuses an internal one to clients (FORBIDDEN), so it does not compile.
   *
   * @example
   * const stop = client.subscribe(balance, { account: 'alice' }, (state) => {
   *   if (state.status === 'error') console.warn(state.error.code, state.data); // last good data
   * });
   */
  subscribe<Q extends AnyPublicQueryDefinition>(
    query: Q,
    args: ArgsOf<Q>,
    listener: QueryListener<ResultOf<Q>>,
  ): () => void;
  /** By name: `T` is what you know the query yields. */
  subscribe<T = unknown>(query: string, args: unknown, listener: QueryListener<T>): () => void;
  subscribe(query: QueryRef, args: unknown, listener: QueryListener<unknown>): () => void {
    // A wrapper per call: the same function subscribed twice is two listeners.
    return this.#session.queries.listen(nameOf(query), args, (state) => listener(state));
  }

  /**
   * Follows a workflow instance live, as {@link subscribe} does a query: `listener` gets its
   * summary — `status`, `output` typed as its run returns it (as JSON) once `completed`,
   * `error` once it failed — each time it changes (the built-in `workflowStatus` query; the
   * workflow must be public and its `authorize` allow this client's caller to read it, or the
   * state is FORBIDDEN). An instance never started reads `new`.
   *
   * @example
   * const stop = client.subscribeWorkflow(Fulfil.ref('order-17'), ({ data }) => {
   *   if (data?.status === 'completed') console.log(data.output);
   * });
   */
  subscribeWorkflow<Output, Progress = unknown>(
    ref: WorkflowRef<any, Output, any, Progress>,
    listener: QueryListener<WorkflowSummary<JsonOf<Output>, Progress>>,
  ): () => void {
    const args = { workflow: ref.workflow, id: ref.key };
    type Summary = WorkflowSummary<JsonOf<Output>, Progress>;
    return this.subscribe<Summary | null>('workflowStatus', args, (state) =>
      listener(knownWorkflow(state, ref.workflow)),
    );
  }

  /**
   * A live query's current state, without subscribing (pending if nobody subscribes to it).
   *
   * @example
   * const { data } = client.getQueryState(balance, { account: 'alice' });
   */
  getQueryState<Q extends AnyPublicQueryDefinition>(
    query: Q,
    args: ArgsOf<Q>,
  ): QueryState<ResultOf<Q>>;
  getQueryState<T = unknown>(query: string, args: unknown): QueryState<T>;
  getQueryState(query: QueryRef, args: unknown): QueryState<unknown> {
    return this.#session.queries.state(nameOf(query), args);
  }

  /**
   * A handle on one live query for `useSyncExternalStore`-style consumers; `'skip'` gives one
   * that stays pending and subscribes to nothing.
   *
   * @example
   * const observer = client.observe(balance, { account: 'alice' });
   * const stop = observer.subscribe(() => render(observer.getSnapshot()));
   */
  observe<Q extends AnyPublicQueryDefinition>(
    query: Q,
    args: ArgsOf<Q> | 'skip',
  ): QueryObserver<ResultOf<Q>>;
  observe<T = unknown>(query: string, args: unknown): QueryObserver<T>;
  observe(query: QueryRef, args: unknown): QueryObserver<unknown> {
    if (args === 'skip') return SKIPPED;
    const name = nameOf(query);
    const queries = this.#session.queries;
    return {
      subscribe: (onChange) => queries.listen(name, args, () => onChange()),
      getSnapshot: () => queries.state(name, args),
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
  send<Def extends AnyActorDefinition, Name extends PublicMessageName<Def>>(
    to: ActorRef<Def>,
    name: Name,
    payload: PayloadOf<Def, Name>,
    options: ClientSendOptions = {},
  ): Promise<{ messageId: string }> {
    const frame = {
      v: PROTOCOL_VERSION,
      type: 'send',
      requestId: this.#session.nextId('r'),
      to: to.id,
      name,
      payload,
      idempotencyKey: options.idempotencyKey ?? this.#session.newKey(),
      ...(options.visible ? { visible: true } : {}),
      ...(options.traceparent === undefined ? {} : { traceparent: options.traceparent }),
    } as const;
    return this.#session.request(frame, options.timeoutMs) as Promise<{ messageId: string }>;
  }

  /**
   * Starts workflow instance `id` with `input` (the workflow must be public, and its
   * `authorize` allow this client's caller to start it): resolves with its ref once the server
   * accepted the start — follow it with {@link subscribeWorkflow} or React's `useWorkflow(ref)`.
   * Idempotent per id: an instance that exists is left as it is; one that runs (or ran) with
   * another input refuses the start (REJECTED, saying to start another id).
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
   * Sends event `name` to a workflow instance (the workflow must be public, and its `authorize`
   * allow this client's caller to signal it): the first `ctx.waitForEvent(name)` consumes it.
   * A workflow that declares `events` takes only those, each with its schema's payload (typed
   * here, and refused with INVALID_PAYLOAD by the server). Resolves once the server accepted it:
   * an instance that ended before it came does not take it (its outcome is REJECTED; `ask` the
   * `signal` message to be told).
   *
   * @example
   * await client.signal(Approval.ref('r-1'), 'approved', { by: 'ann' });
   */
  signal<Events extends EventSchemas, Name extends EventName<Events>>(
    ref: WorkflowRef<unknown, unknown, Events>,
    name: Name,
    ...[payload, options = {}]: ClientSignalArgs<Events, Name>
  ): Promise<{ messageId: string }> {
    return this.send(ref as ActorRef, 'signal' as never, { name, payload } as never, options);
  }

  /**
   * Cancels a workflow instance (as its `authorize` allows this client's caller): its
   * compensations run, then it ends as `cancelled`. Resolves once the server accepted it.
   *
   * @example
   * await client.cancel(Fulfil.ref('order-17'), { reason: 'changed my mind' });
   */
  cancel(
    ref: WorkflowRef,
    options: ClientSendOptions & { readonly reason?: string } = {},
  ): Promise<{ messageId: string }> {
    const { reason, ...send } = options;
    return this.send(ref as ActorRef, 'cancel' as never, (reason ? { reason } : {}) as never, send);
  }

  /**
   * Sends a message and resolves with the handler's reply; rejects with a BatonError carrying
   * `code` (REJECTED for a TerminalError, ASK_TIMEOUT after `timeoutMs`, …). Asking again with
   * the same idempotency key returns the first outcome.
   *
   * @example
   * const balance = await client.ask(Account.ref('alice'), 'balance', {});
   */
  ask<Def extends AnyActorDefinition, Name extends PublicMessageName<Def>>(
    to: ActorRef<Def>,
    name: Name,
    payload: PayloadOf<Def, Name>,
    options: ClientAskOptions = {},
  ): Promise<ReplyOf<Def, Name>> {
    const frame = {
      v: PROTOCOL_VERSION,
      type: 'ask',
      requestId: this.#session.nextId('r'),
      to: to.id,
      name,
      payload,
      idempotencyKey: options.idempotencyKey ?? this.#session.newKey(),
      ...(options.traceparent === undefined ? {} : { traceparent: options.traceparent }),
    } as const;
    const timeoutMs = options.timeoutMs ?? this.#session.askTimeoutMs;
    return this.#session.request(frame, timeoutMs) as Promise<ReplyOf<Def, Name>>;
  }

  /**
   * Reconnects at once if the client is waiting to (the browser's `online` and
   * `visibilitychange` events do this by themselves); checks an open connection with a ping.
   *
   * @example
   * retryButton.onclick = () => client.reconnect();
   */
  reconnect(): void {
    this.#session.connection.wake();
  }

  /**
   * Closes the connection for good; sends and asks in flight reject with UNAVAILABLE, saying
   * they may have been applied (retry with the same idempotencyKey). Query states stay readable.
   *
   * @example
   * window.addEventListener('pagehide', () => client.close());
   */
  close(): void {
    this.#session.close();
  }
}

function nameOf(query: QueryRef): string {
  return typeof query === 'string' ? query : query.name;
}

const SKIPPED: QueryObserver<unknown> = Object.freeze({
  subscribe: () => () => {},
  getSnapshot: () => PENDING_STATE,
});

/** `signal`'s payload and options: the payload may be left out where the event's schema takes none. */
type ClientSignalArgs<Events extends EventSchemas, Name extends string> =
  undefined extends EventInput<Events, Name>
    ? [payload?: EventInput<Events, Name>, options?: ClientSendOptions]
    : [payload: EventInput<Events, Name>, options?: ClientSendOptions];
