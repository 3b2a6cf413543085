import type { ActorRef, AnyActorDefinition, MessageName, PayloadOf, ReplyOf } from '../actor.ts';
import { awaitsRedrive } from '../adapter/awaitsRedrive.ts';
import { type Envelope, encodeEnvelope } from '../adapter/envelope.ts';
import { answersMessage } from '../adapter/idempotencyKeyReused.ts';
import { type Clock, type Queue, type Store, systemClock } from '../adapter/ports.ts';
import type { IdempotencyRecord, Outcome } from '../adapter/storedRecords.ts';
import { ANONYMOUS, type Caller, SYSTEM } from '../caller.ts';
import { invalidArgument } from '../errors.ts';
import type { JsonOf } from '../jsonOf.ts';
import { Registry } from '../registry.ts';
import { DAY } from '../shared/days.ts';
import { callbackToken } from '../workflow/callbackToken.ts';
import { summarize, type WorkflowSummary } from '../workflow/journal.ts';
import type {
  AnyWorkflowDefinition,
  EventName,
  EventSchemas,
  InputOf,
  WorkflowRef,
  WorkflowRefOf,
} from '../workflow/workflow.ts';
import { checkCallbackToken } from './checkCallbackToken.ts';
import type {
  AskOptions,
  ClientOptions,
  EndOptions,
  SendOptions,
  SendResult,
  SignalArgs,
} from './clientOptions.ts';
import { BOUNDED_READ, IdempotencyKeys, settle } from './IdempotencyKeys.ts';
import { ingressEnvelope, type Sender } from './ingressEnvelope.ts';
import { awaitWorkflow, readWorkflow } from './readWorkflow.ts';
import { withReceipt } from './receipts.ts';
import { signalRefused } from './signalRefused.ts';
import { waitForOutcome } from './waitForOutcome.ts';
import { checkedAtDoor, doorCheck } from './workflowDoor.ts';

/** What an implicit (anonymous) Client is told when it sends an internal message. */
const IMPLICIT_HINT =
  'this Client speaks for an anonymous caller: trusted server code sends internal messages with ' +
  'client.asSystem().send(…) (workflows: client.asSystem().start(…), or declare one clients may ' +
  'start with public: true), and a host passes the caller it authenticated as { caller }';

/**
 * Ingress from outside: sends messages to actors and asks for their replies.
 * Payloads are validated before anything is enqueued, so a bad call fails at once.
 *
 * A Client speaks for an anonymous caller unless told otherwise: it may send only public
 * handlers. Hosts pass the caller they authenticated (`{ caller }`); trusted server code that
 * holds the queue's rights (a Lambda of the app, an operator's script) says so with
 * {@link Client.asSystem}, which may also send internal messages.
 *
 * @example
 * const client = new Client({ actors: [Account], store, queue });
 * await client.send(Account.ref('alice'), 'deposit', { amount: 5 }, { idempotencyKey: 'dep-1' });
 * const balance = await client.asSystem().ask(Account.ref('alice'), 'balance', {});
 */
export class Client {
  readonly #registry: Registry;
  readonly #store: Store;
  readonly #queue: Queue;
  readonly #clock: Clock;
  readonly #askTimeoutMs: number;
  /** This client's idempotency keys: their claims, and the reads of outcomes. */
  readonly #keys: IdempotencyKeys;
  #caller: Caller = ANONYMOUS;
  readonly #options: ClientOptions;

  constructor(options: ClientOptions) {
    this.#registry = new Registry(options.actors);
    this.#store = options.store;
    this.#queue = options.queue;
    this.#clock = options.clock ?? systemClock;
    this.#askTimeoutMs = options.askTimeoutMs ?? 30_000;
    const retention = options.idempotencyRetentionMs ?? 14 * DAY;
    if (typeof retention !== 'number' || !(retention > 0) || !Number.isFinite(retention)) {
      throw invalidArgument(
        `idempotencyRetentionMs must be a positive number of milliseconds, the engine's (default 14 days), got ${String(retention)}`,
      );
    }
    this.#keys = new IdempotencyKeys(this.#store, this.#clock, retention);
    this.#options = options;
  }

  /**
   * This client as trusted server code (caller `{ kind: 'system' }`): it may send internal
   * messages too, and no `authorize` check runs. Use it only where the code, not a user,
   * decides what to send.
   *
   * @example
   * await client.asSystem().send(Account.ref('bob'), 'credit', { from: 'bank', amount: 5 });
   */
  asSystem(): Client {
    const system = new Client(this.#options);
    system.#caller = SYSTEM;
    return system;
  }

  /**
   * Checks a message as {@link send} and {@link ask} do before they enqueue it, and does nothing
   * else: its idempotency key, the target's access rule (`authorize`), its payload, a workflow
   * callback's token. Throws what they would throw for those (a workflow start of an id taken
   * with another input, and a signal to an instance that ended, are refused by `send` and `ask`
   * alone, which read the instance). A host
   * calls it before it prepares a wait for the message's outcome, so that a refused request
   * costs no more than its refusal.
   */
  async check(
    to: ActorRef,
    name: string,
    payload: unknown,
    options: SendOptions = {},
  ): Promise<void> {
    const envelope = this.#envelope(to, name, payload, options);
    await this.#checkToken(envelope, options);
    await this.#checkSize(envelope, options);
  }

  /**
   * Enqueues a message; resolves once it is accepted (not yet processed) with its id, and when it
   * was first sent (a retry's is its first send's): what to pass `readIdempotency` for its outcome.
   */
  async send<Def extends AnyActorDefinition, Name extends MessageName<Def>>(
    to: ActorRef<Def>,
    name: Name,
    payload: PayloadOf<Def, Name>,
    options: SendOptions = {},
  ): Promise<SendResult> {
    let envelope = this.#envelope(to, name, payload, options);
    await this.#checkToken(envelope, options);
    await this.#checkSize(envelope, options);
    const receipted = this.#receipted(envelope, options);
    envelope = receipted instanceof Promise ? await receipted : receipted;
    let dedupeId = envelope.id;
    // A keyed send binds its key to this message before anything is enqueued. A retry of a
    // message already processed is answered without enqueuing it again.
    if (options.idempotencyKey !== undefined) {
      const bound = await this.#keys.bind(envelope);
      envelope = bound.envelope;
      if (bound.known) return { messageId: envelope.id, sentAt: envelope.sentAt };
      dedupeId = bound.dedupeId;
    }
    const enqueue = () =>
      this.#queue.send([{ group: envelope.to, dedupeId, body: encodeEnvelope(envelope) }]);
    const known = checkedAtDoor(envelope) && (await this.#checkAtDoor(envelope, options, enqueue));
    if (!known) await enqueue();
    return { messageId: envelope.id, sentAt: envelope.sentAt };
  }

  /**
   * Sends a message and resolves with the handler's reply, or rejects with its error (a
   * BatonError: REJECTED for a TerminalError, INVALID_PAYLOAD, …). Asking again with the same
   * idempotency key returns the first outcome without running the handler again. Under the key
   * of a plain `send` whose message waits as a dead letter (one a redrive applies without
   * force), it waits with it: for what the redrive applies, or DEAD_LETTERED once the letter is
   * purged (ASK_TIMEOUT meanwhile, naming the letter).
   */
  async ask<Def extends AnyActorDefinition, Name extends MessageName<Def>>(
    to: ActorRef<Def>,
    name: Name,
    payload: PayloadOf<Def, Name>,
    options: AskOptions = {},
  ): Promise<ReplyOf<Def, Name>> {
    // Marked as awaited: told DEAD_LETTERED, the caller may act on it, so no plain redrive.
    let envelope = this.#envelope(to, name, payload, { ...options, awaited: true });
    await this.#checkToken(envelope, options);
    await this.#checkSize(envelope, options);
    const receipted = this.#receipted(envelope, options);
    envelope = receipted instanceof Promise ? await receipted : receipted;
    // Encoded now: the payload as validated, whatever the caller changes while we wait.
    let body = encodeEnvelope(envelope);
    let dedupeId = envelope.id;
    const timeoutMs = options.timeoutMs ?? this.#askTimeoutMs;
    // An outcome that waits for a redrive (a plain send's under this key, kept as a dead letter
    // that a redrive without force applies) is not this ask's answer: it waits on with it.
    const fingerprint = envelope.fingerprint;
    const settles = (record: IdempotencyRecord) =>
      !awaitsRedrive(record) || !answersMessage(record, fingerprint);
    // Watch before reading, so an outcome committed between the read and the watch is not missed.
    // Polled from the message's sentAt, which a retry moves back to its first send's.
    const read = () => this.#store.readIdempotency(envelope.id, envelope.sentAt, BOUNDED_READ);
    const waiting = waitForOutcome(this.#store, envelope.id, timeoutMs, read, settles);
    try {
      // A fresh random key has no outcome yet: only a key given by the caller may have one.
      if (options.idempotencyKey !== undefined) {
        const bound = await this.#keys.bind(envelope);
        if (bound.known && settles(bound.known)) {
          return settle(bound.known, envelope) as ReplyOf<Def, Name>;
        }
        if (bound.envelope !== envelope) {
          envelope = bound.envelope;
          body = encodeEnvelope(envelope);
        }
        // Its message is a dead letter that waits for a redrive: nothing to enqueue.
        dedupeId = bound.dedupeId;
        if (bound.known) {
          waiting.seen(bound.known);
          return settle(await waiting.record, envelope) as ReplyOf<Def, Name>;
        }
      }
      const enqueue = () => this.#queue.send([{ group: envelope.to, dedupeId, body }]);
      const known =
        checkedAtDoor(envelope) && (await this.#checkAtDoor(envelope, options, enqueue));
      if (known) waiting.seen(known);
      else await enqueue();
      return settle(await waiting.record, envelope) as ReplyOf<Def, Name>;
    } finally {
      waiting.cancel();
    }
  }

  /**
   * The stored outcome of an ingress message (by the `messageId` a send returned), if processed
   * — only to the caller that sent it (`options.caller`, else this client's): another caller's
   * id reads as unknown. The id tells where the read starts: an unkeyed message's is a receipt
   * that carries when it was sent, and a keyed message's claim (on a store that reads claims)
   * names when it was. An id with neither, one no door made, is unknown at once, read no further
   * (trusted code may still read it, from `options.sentAt`, unless `keyed`). The read starts no
   * earlier than twice the outcome retention ago (an older message has no outcome left), and
   * goes through {@link OUTCOME_READ_MAX_PAGES} outcome pages at most: one that needs more
   * throws LIMIT_EXCEEDED.
   */
  outcome(
    messageId: string,
    options: { readonly caller?: Caller; readonly sentAt?: number; readonly keyed?: boolean } = {},
  ): Promise<Outcome | undefined> {
    return this.#keys.outcome(messageId, options.caller ?? this.#caller, options);
  }

  /**
   * Starts workflow instance `id` with `input`. Idempotent per id: starting an instance that
   * exists with the same input does nothing and returns the same ref (its outcome is the first
   * start's); a start of an instance that runs (or ran) with another input is refused here
   * (REJECTED, saying to start another id or read that instance), nothing enqueued. One that
   * races another start of the id is refused in its turn (logged; this call does not wait for
   * the turn, an `ask` of `start` does). A public
   * workflow may be started by any caller its `authorize` allows; others only by trusted code.
   *
   * @example
   * const order = await client.asSystem().start(Checkout, 'order-17', { amount: 30 });
   * const output = await client.asSystem().result(order);
   */
  async start<W extends AnyWorkflowDefinition>(
    definition: W,
    id: string,
    input: InputOf<W>,
    options: SendOptions = {},
  ): Promise<WorkflowRefOf<W>> {
    const ref = definition.ref(id);
    await this.send(ref as ActorRef, 'start' as never, { input } as never, options);
    return ref as WorkflowRefOf<W>;
  }

  /**
   * Waits for a workflow instance to end: its output, or the error that ended it (STEP_FAILED,
   * CANCELLED, …), or TIMED_OUT after `timeoutMs` (default: the client's askTimeoutMs).
   */
  async result<Output>(
    ref: WorkflowRef<unknown, Output>,
    options: { readonly caller?: Caller; readonly timeoutMs?: number } = {},
  ): Promise<JsonOf<Output>> {
    const caller = options.caller ?? this.#caller;
    const read = () => readWorkflow(this.#store, this.#registry, caller, ref as ActorRef);
    return (await awaitWorkflow(
      read,
      ref as ActorRef,
      options.timeoutMs ?? this.#askTimeoutMs,
    )) as JsonOf<Output>;
  }

  /**
   * A workflow instance's status, output or error, and the number of commands it issued. `new`
   * for an id with no start applied: never started (a misspelt id too), a start still on its
   * way, or an instance that halted its `retentionMs` after it ended.
   */
  async workflowStatus<Output, Progress = unknown>(
    ref: WorkflowRef<unknown, Output, any, Progress>,
    options: { readonly caller?: Caller } = {},
  ): Promise<WorkflowSummary<Output, Progress>> {
    const caller = options.caller ?? this.#caller;
    const state = await readWorkflow(this.#store, this.#registry, caller, ref as ActorRef);
    return summarize(ref.key, state) as WorkflowSummary<Output, Progress>;
  }

  /**
   * Sends event `name` to a workflow instance: the first `ctx.waitForEvent(name)` consumes it,
   * also one that starts waiting later. A workflow that declares `events` takes only those, each
   * with its schema's payload: checked when compiled, and refused here (INVALID_PAYLOAD, with
   * nothing sent) when it is not. An instance that ended takes no event: refused here too
   * (REJECTED; `details.status` to a caller who may read it), with nothing sent but a keyed
   * one, enqueued so that its key keeps the refusal as its outcome. Resolves once the event is
   * accepted; one that comes as the instance ends is not taken, and its outcome says so: read
   * it with {@link outcome}, or `ask` the `signal` message where it matters.
   *
   * @example
   * await client.asSystem().signal(Approval.ref('r-1'), 'approved', { by: 'ann' });
   */
  async signal<Events extends EventSchemas, Name extends EventName<Events>>(
    ref: WorkflowRef<unknown, unknown, Events>,
    name: Name,
    ...[payload, options = {}]: SignalArgs<Events, Name>
  ): Promise<SendResult> {
    try {
      return await this.send(
        ref as ActorRef,
        'signal' as never,
        { name, payload } as never,
        options,
      );
    } catch (error) {
      throw signalRefused(error, ref, name);
    }
  }

  /** Cancels a workflow instance: its compensations run, then it ends as `cancelled`. */
  async cancel(ref: WorkflowRef, options: EndOptions = {}): Promise<SendResult> {
    return this.#end(ref, 'cancel', options);
  }

  /** Ends a workflow instance at once, without compensations (trusted code only). */
  async terminate(ref: WorkflowRef, options: EndOptions = {}): Promise<SendResult> {
    return this.#end(ref, 'terminate', options);
  }

  /** Replays a paused instance with the code running now: it goes on if the code replays it. */
  async resumeWorkflow(ref: WorkflowRef, options: SendOptions = {}): Promise<SendResult> {
    return this.send(ref as ActorRef, 'resume' as never, {} as never, options);
  }

  /**
   * Completes a workflow's callback (`ctx.createCallback`) with `value`, or fails it with
   * `{ error }`: the token is all that is needed, and it completes the callback once.
   */
  async completeCallback(
    token: string,
    result: { readonly value?: unknown } | { readonly error: string },
    options: SendOptions = {},
  ): Promise<SendResult> {
    const { actorId: id } = callbackToken.decode(token);
    const slash = id.indexOf('/');
    const to = { type: id.slice(0, slash), key: id.slice(slash + 1), id };
    const body =
      'error' in result
        ? { token, ok: false, error: result.error }
        : { token, ok: true, value: result.value };
    return this.send(to as ActorRef, 'callback' as never, body as never, options);
  }

  /** Refuses a payload over the limit, but not a keyed retry's (IdempotencyKeys.checkSize). */
  #checkSize(envelope: Envelope, options: SendOptions): Promise<void> {
    return this.#keys.checkSize(envelope, options.idempotencyKey !== undefined);
  }

  /** A workflow instance's `cancel` or `terminate`, with its reason if given. */
  #end(ref: WorkflowRef, how: 'cancel' | 'terminate', options: EndOptions): Promise<SendResult> {
    const { reason, ...send } = options;
    return this.send(ref as ActorRef, how as never, (reason ? { reason } : {}) as never, send);
  }

  /** A workflow's start or signal its instance would refuse: see workflowDoor.ts's `doorCheck`. */
  #checkAtDoor(envelope: Envelope, options: SendOptions, enqueue: () => Promise<void>) {
    const keyed = options.idempotencyKey !== undefined;
    const { caller } = this.#sender(options);
    return doorCheck(this.#store, this.#registry, caller, envelope, keyed, enqueue);
  }

  /** A token-guarded message (a workflow's callback) from outside: its token checked here. */
  #checkToken(envelope: Envelope, options: SendOptions): Promise<void> {
    const { caller, hint } = this.#sender(options);
    const keyed = options.idempotencyKey !== undefined;
    return checkCallbackToken(this.#store, this.#registry, caller, envelope, keyed, hint);
  }

  /** Who a call speaks for, and what a refusal of an implicit anonymous caller adds. */
  #sender(options: SendOptions): Sender {
    const caller = options.caller ?? this.#caller;
    const implicit = options.caller === undefined && caller.kind === 'anonymous';
    return { caller, hint: implicit ? IMPLICIT_HINT : undefined };
  }

  /** An unkeyed message's envelope with a receipt for a key: its sender may read it by id. */
  #receipted(envelope: Envelope, options: SendOptions): Envelope | Promise<Envelope> {
    if (options.idempotencyKey !== undefined) return envelope;
    return withReceipt(this.#store, envelope, this.#sender(options).caller);
  }

  #envelope(to: ActorRef, name: string, payload: unknown, options: SendOptions): Envelope {
    return ingressEnvelope(
      this.#registry,
      this.#clock.now(),
      this.#sender(options),
      to,
      name,
      payload,
      options,
    );
  }
}
