/**
 * What a workflow's `run` sees: durable commands. Each is journaled; when the run is replayed,
 * a command already journaled resolves with its recorded result, so the code between commands
 * must be deterministic — read time, randomness and ids through `ctx`, and do I/O in steps.
 */
import type { ActorRef, AnyActorDefinition, MessageName, PayloadOf, ReplyOf } from '../actor.ts';
import type { Caller } from '../caller.ts';
import type { JsonOf } from '../jsonOf.ts';
import type { Logger } from '../logger.ts';
import type {
  AnyEvents,
  AnyWorkflowDefinition,
  EventName,
  EventOutput,
  EventSchemas,
  InputOf,
  OutputOf,
} from './workflow.ts';

/** How a failing step is retried: `maxAttempts` in all, with exponential backoff between. */
export interface RetryPolicy {
  /**
   * Attempts in all, the first included; `Infinity` retries until the step passes or throws a
   * `TerminalError` (at most `maxDelayMs` apart). @default 3 (20 for undo work: see the
   * workflow's `compensationRetry`)
   */
  readonly maxAttempts?: number;
  /** The wait before the second attempt. @default 1000 ms */
  readonly initialDelayMs?: number;
  /** Each later wait is this many times the one before. @default 2 */
  readonly backoffFactor?: number;
  /** The longest wait. @default 1 hour */
  readonly maxDelayMs?: number;
}

/** Options of `ctx.step`. */
export interface StepOptions<T> {
  readonly retry?: RetryPolicy;
  /**
   * How long one attempt may run: past it the attempt fails with TIMED_OUT (retried by `retry`,
   * with the same key) and its `info.signal` is aborted. JavaScript cannot stop a function, so
   * pass the signal on (`fetch(url, { signal })`); one that goes on regardless may still have
   * its effect, once, under the key. Keep it well under the worker's timeout, as the steps of a
   * turn commit together. @default no timeout
   */
  readonly timeoutMs?: number;
  /**
   * Undoes the step (a saga). It is kept from the step's first attempt: a step with a
   * compensation is committed before it is attempted (a turn of its own), so whatever becomes of
   * an attempt — a crash before its result was committed, a lost response, a cancel while it
   * waited to retry — the compensation runs if the run fails or is cancelled, in reverse order
   * with the others, as a step of its own (retried per `compensationRetry`).
   *
   * `result` is the step's result, or `undefined` when it has none (it failed, or had not
   * finished): an attempt may have had its effect all the same, so look that up by
   * `info.stepKey`, the key the step's attempts were given. `info.key` is the compensation's own.
   * A step that loses a race, or whose failure the run catches, is not undone then: only if
   * the run fails or is cancelled later.
   * @example
   * await ctx.step('charge', ({ key }) => payments.charge(amount, key), {
   *   // Refunds the charge made with the step's key, if any was.
   *   compensate: (_, { stepKey, key }) => payments.refundByChargeKey(stepKey, key),
   * });
   */
  readonly compensate?: (result: T | undefined, info: CompensationInfo) => unknown;
}

/** What a step's compensation receives beside the step's result. */
export interface CompensationInfo extends StepInfo {
  /** The key every attempt of the compensated step was given (its {@link StepInfo.key}). */
  readonly stepKey: string;
  /**
   * The attempts of the compensated step its journal recorded. 0: it was committed for an
   * attempt, but none was recorded — it never ran, or ran only in a turn that crashed before its
   * commit (whose message was then dead-lettered rather than run again).
   */
  readonly stepAttempts: number;
}

/**
 * What a call's or a send's compensation may do: workflow commands, run by the saga runner and
 * journaled like the run's own — a `call` or `send` to an actor is applied exactly once, a
 * `step` (outside work) at least once with one key. Use this context, not the run's `ctx`:
 * once the run has failed or been cancelled, the run's `ctx` issues nothing more.
 */
export type CompensationContext = Pick<WorkflowContext, 'call' | 'send' | 'step' | 'log'>;

/**
 * What `ctx.race(commands)` resolves with: the winner's `index` and its `value`, typed by each
 * other, so that a check of `index` narrows `value` to that command's result.
 * @example
 * const won = await ctx.race([ctx.waitForEvent('paid'), ctx.sleep(DAY)]);
 * if (won.index === 0) won.value; // the event's payload
 */
export type RaceResult<T extends readonly Promise<unknown>[]> = {
  [K in keyof T]: {
    readonly index: K extends `${infer N extends number}` ? N : number;
    readonly value: Awaited<T[K]>;
  };
}[number];

/** Options of `ctx.call` and `ctx.send`. */
export interface CallOptions<R> {
  /** How long `call` waits for the reply before it fails with ASK_TIMEOUT. @default the engine's */
  readonly timeoutMs?: number;
  /**
   * Undoes the message (a saga), e.g. releases the stock a `reserve` held: kept once the call
   * succeeds (a send: once it is sent), and when the run fails or is cancelled it runs with the
   * reply among the other compensations, in reverse order. Its `saga.call` / `saga.send` are
   * applied exactly once. A call that failed with ASK_TIMEOUT or DEAD_LETTERED may have been
   * applied, or may be later: its compensation is kept too, and runs with `undefined` for the
   * reply. A message to the same actor is applied after the call's; a dead letter redriven after
   * the compensation ran is not, so purge it instead (`baton dead-letters`).
   * @example
   * await ctx.call(Stock.ref(sku), 'reserve', { orderId, qty }, {
   *   compensate: (_, saga) => saga.call(Stock.ref(sku), 'release', { orderId }),
   * });
   */
  readonly compensate?: (reply: R | undefined, saga: CompensationContext) => unknown;
}

/** What a step's function receives. */
export interface StepInfo {
  /**
   * Stable across the attempts of this step and unique to it (instance, start and step): pass
   * it as the idempotency key of the outside call, so a repeated attempt is applied once there.
   * Made of the step's name and how many steps of that name came before it: across a deploy,
   * rename no step, and add or remove none before a step of its name (docs/workflows.md,
   * "Changing a workflow while instances run").
   */
  readonly key: string;
  /** 1 for the first attempt. */
  readonly attempt: number;
  /** Aborted when the attempt runs past the step's `timeoutMs`: pass it to what the step awaits. */
  readonly signal: AbortSignal;
}

/** Options of a wait that may end without its event. */
export interface WaitOptions {
  /** The wait fails with TIMED_OUT after this long. @default no timeout */
  readonly timeoutMs?: number;
}

/** `ctx.waitForEvent`: typed by the workflow's `events`, or any name and payload without them. */
export type WaitForEvent<Events extends EventSchemas> =
  string extends EventName<Events>
    ? <T = unknown>(name: string, options?: WaitOptions) => Promise<T>
    : <N extends EventName<Events>>(
        name: N,
        options?: WaitOptions,
      ) => Promise<EventOutput<Events, N>>;

/** A callback an outside system completes with its token (`client.completeCallback`). */
export interface WorkflowCallback<T> {
  /** Unguessable: whoever holds it can complete the callback, once. */
  readonly token: string;
  /** Resolves with the value the outside system completes it with. */
  readonly result: Promise<T>;
}

/**
 * The context of a workflow's run.
 *
 * @example
 * run: async (ctx, { orderId, amount }) => {
 *   const charge = await ctx.step('charge', ({ key }) => payments.charge(amount, key), {
 *     retry: { maxAttempts: 5 },
 *     compensate: (_, { key, stepKey }) => payments.refund(stepKey, key), // by the charge's key
 *   });
 *   await ctx.call(Stock.ref(orderId), 'reserve', { qty: 1 });
 *   const shipped = await ctx.race([ctx.waitForEvent('shipped'), ctx.sleep(3 * DAY)]);
 *   return { charge: charge.id, shipped: shipped.index === 0 };
 * }
 */
export interface WorkflowContext<
  Events extends EventSchemas = AnyEvents,
  Progress = unknown,
  Input = unknown,
> {
  /** The workflow's name. */
  readonly workflow: string;
  /** This instance's id (the key it was started with). */
  readonly id: string;
  /**
   * This run's id: another each time the id starts anew (once its retention ended) under another
   * start message, the same on every replay. It comes from the start's message id, so a start
   * under an idempotency key an earlier start of this id used repeats that run's id (and its
   * step keys): give each start a key of its own. Derive a child's id from it when the child may outlive this instance's
   * retention (`ctx.child(Charge, \`${ctx.id}-${ctx.runId}\`, input)`), so a later run of this
   * id starts a child of its own.
   */
  readonly runId: string;
  /** Who started it. */
  readonly caller: Caller;
  readonly log: Logger;
  /**
   * Runs `fn` — work outside Baton — at least once (again after a crash before its result
   * commits), retried on failure per `retry`; the run sees its result, or STEP_FAILED after the
   * last attempt (at once when `fn` throws a `TerminalError`). The result must be JSON: the run
   * gets it as it is journaled, on its first run as on a replay ({@link JsonOf}: a Date as its
   * ISO string, a Map as `{}`), and so does the step's `compensate`.
   */
  step<T>(
    name: string,
    fn: (info: StepInfo) => T | Promise<T>,
    options?: StepOptions<NoInfer<JsonOf<Awaited<T>>>>,
  ): Promise<JsonOf<Awaited<T>>>;
  /**
   * Asks an actor: the message is applied exactly once, and its reply (or the error that
   * rejected it, or ASK_TIMEOUT) is journaled with the workflow's progress. `compensate`
   * undoes it when the run fails or is cancelled (see {@link CallOptions}).
   */
  call<Def extends AnyActorDefinition, Name extends MessageName<Def>>(
    to: ActorRef<Def>,
    name: Name,
    payload: PayloadOf<Def, Name>,
    options?: CallOptions<ReplyOf<Def, Name>>,
  ): Promise<ReplyOf<Def, Name>>;
  /** Sends an actor a message, exactly once, without waiting; `compensate` as for `call`. */
  send<Def extends AnyActorDefinition, Name extends MessageName<Def>>(
    to: ActorRef<Def>,
    name: Name,
    payload: PayloadOf<Def, Name>,
    options?: Pick<CallOptions<undefined>, 'compensate'>,
  ): void;
  /** Sleeps `ms`, or until the `Date`, on a durable timer (days or months are fine). */
  sleep(duration: number | Date): Promise<void>;
  /**
   * Waits for the event `name` (`client.signal`). An event that arrived before the wait is kept
   * and consumed by the first wait for it; each event is consumed once. With the workflow's
   * `events`, `name` is one of them and the payload is typed (and parsed) by its schema. Race
   * it with {@link race}, not `Promise.race`, whose losing wait goes on and takes the next event.
   */
  readonly waitForEvent: WaitForEvent<Events>;
  /** A callback whose token an outside system completes (`client.completeCallback`). */
  createCallback<T = unknown>(name: string, options?: WaitOptions): WorkflowCallback<T>;
  /**
   * Whichever of these commands (`sleep`, `waitForEvent`, callbacks' results, `call`, `step`,
   * `child`) settles first: its index and value. The others are cancelled: a losing wait
   * consumes no later event, a losing timer never fires, a losing child is cancelled. A losing
   * `call` with a `compensate` is undone once its reply comes (the actor may apply it still);
   * the run completes only after that. Pass the promises the commands returned (or another
   * race's) and map the winner's value after: an entry derived from one (`.then`), an async
   * function's or `Promise.all`'s pauses the instance (NON_DETERMINISTIC), as the race could
   * not cancel what it awaits.
   */
  race<const T extends readonly Promise<unknown>[]>(commands: T): Promise<RaceResult<T>>;
  /** Starts workflow `definition` as a child with id `id`, and resolves with its output. */
  child<W extends AnyWorkflowDefinition>(
    definition: W,
    id: string,
    input: InputOf<W>,
  ): Promise<OutputOf<W>>;
  /**
   * Runs the branches concurrently; resolves with their results in order (fails on the first
   * failure, and starts no branch after it under `maxConcurrency`). Their calls, sleeps and waits are under way together; their `ctx.step`s run in the
   * instance's turn one at a time, as every step does.
   */
  parallel<T>(
    branches: readonly (() => Promise<T>)[],
    options?: { readonly maxConcurrency?: number },
  ): Promise<T[]>;
  /**
   * `fn` over each item, at most `maxConcurrency` at once; results in the items' order. As with
   * {@link parallel}, steps among them run one at a time. It fails on the first failure, and
   * starts no item after it (those under way go on, their results unread).
   */
  map<I, T>(
    items: readonly I[],
    fn: (item: I, index: number) => Promise<T>,
    options?: { readonly maxConcurrency?: number },
  ): Promise<T[]>;
  /**
   * The time, recorded like {@link random}: committed before a step runs, so a run that names or
   * picks a step by it makes the same choice on every attempt.
   */
  now(): number;
  /**
   * A random number in [0, 1), recorded: committed before a step runs, so a step that passed it
   * outside sees the same one on every attempt.
   */
  random(): number;
  /** A random UUID, recorded like {@link random}. */
  uuid(): string;
  /**
   * Whether this run takes the new path of change `id`: true for runs that reach this point on
   * code with the patch, false for a run replaying a history recorded before it. It answers for
   * this point: a later call past the history is true, so call it once for a change that spans
   * several places and keep the answer.
   * @example
   * if (ctx.patched('send-receipt')) await ctx.step('receipt', sendReceipt);
   */
  patched(id: string): boolean;
  /**
   * Tells the instance's readers where the run stands (a stage, counts): kept in its record and
   * given by `workflowStatus`, `useWorkflow` and `baton workflows show` as `progress`, live, until
   * the next call, and once the run ends (failed or cancelled: where the run stood then). Not a
   * command: the run's code sets it again as it replays, so call it from the run's code (inside a
   * step's function it is ignored, and logged). JSON, at most 16 KiB, checked by the workflow's
   * `progress` schema; a value refused pauses the run (INVALID_ARGUMENT).
   * @example
   * ctx.setProgress({ stage: 'packing', packed: 0, of: items.length });
   */
  setProgress(value: Progress): void;
  /**
   * Ends this run and starts the instance anew with `input` (checked by the workflow's `input`
   * schema) and an empty history, for a loop that would run for ever: the history a cold worker
   * replays stays that of one run. The instance keeps its id, its parents awaiting it, the
   * events it holds and its progress; the new run gets a `runId` (so step keys) of its own,
   * starts in the instance's next turn, and ends the instance as any run does. The run's waits
   * (sleeps, events, callbacks) are cancelled; it may not leave a step, call or child under way
   * or compensations kept (refused: the run pauses). It throws, to end the run: do not catch it.
   * @example
   * // A poller that runs for months: a new run every 1,000 polls, carrying its cursor.
   * for (let i = 0; i < 1000; i++) {
   *   cursor = await ctx.step('poll', () => feed.poll(cursor));
   *   await ctx.sleep(60_000);
   * }
   * ctx.continueAsNew({ cursor });
   */
  continueAsNew(input: Input): never;
}
