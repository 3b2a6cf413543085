/**
 * `workflow()`: a durable function. Each instance is an actor of a type the workflow reserves
 * (`wf-<name>`, keyed by the instance id) whose state is the instance's journal, so each step
 * commits with the workflow's progress in one turn, exactly once, and actors' rules (lives,
 * halts, deploys, who may call what) hold unchanged.
 */
import type * as z from 'zod';
import {
  type ActorDefinition,
  type ActorRef,
  actor,
  WORKFLOW_ACTOR,
  WORKFLOW_TYPE_PREFIX,
} from '../actor.ts';
import type { Caller } from '../caller.ts';
import { BatonError, ErrorCode } from '../errors.ts';
import type { JsonOf } from '../jsonOf.ts';
import { nameTooLong } from '../limits.ts';
import type { Schema } from '../schema.ts';
import { DAY } from '../shared/days.ts';
import { BUILT_IN_QUERIES } from './builtInQueries.ts';
import { traceCommands } from './commandSpans.ts';
import { workflowHandlers } from './handlers.ts';
import type { WorkflowState, WorkflowSummary } from './journal.ts';
import { checkRetryPolicy } from './retry.ts';
import type { RetryPolicy, WorkflowContext } from './WorkflowContext.ts';
import { workflowQueries } from './workflowQueries.ts';

/**
 * What an `authorize` check of a workflow is asked: who wants to do what to which instance. A
 * signal's `event` is one of the workflow's declared events (any name without `events`): one it
 * does not take is refused before `authorize` is asked.
 */
export type WorkflowRequest<Input = unknown, Events extends EventSchemas = AnyEvents> =
  | { readonly action: 'start'; readonly id: string; readonly input: Input }
  | { readonly action: 'signal'; readonly id: string; readonly event: EventName<Events> }
  | { readonly action: 'cancel'; readonly id: string }
  | { readonly action: 'read'; readonly id: string };

/** The events a workflow takes, by name: each one's payload schema. */
export type EventSchemas = Readonly<Record<string, Schema>>;

/** The events of a workflow that declares none: any name, any payload. */
export type AnyEvents = any;

/** Whether `Events` names no events (a workflow without `events`): any name, any payload. */
type Untyped<Events extends EventSchemas> = string extends keyof Events ? true : false;

/** The event names a workflow takes: those it declares, or any without `events`. */
export type EventName<Events extends EventSchemas> =
  Untyped<Events> extends true ? string : keyof Events & string;

/** What a sender passes as event `N`'s payload (the schema's input). */
export type EventInput<Events extends EventSchemas, N extends string> =
  Untyped<Events> extends true ? unknown : z.input<Events[N]>;

/** What `ctx.waitForEvent(N)` resolves with (the schema's output). */
export type EventOutput<Events extends EventSchemas, N extends string> =
  Untyped<Events> extends true ? unknown : z.output<Events[N]>;

/** A `signal` message's payload: one of the declared events, its payload typed by its schema. */
export type SignalOf<Events extends EventSchemas> =
  Untyped<Events> extends true
    ? { name: string; payload?: unknown }
    : {
        [N in keyof Events & string]: undefined extends z.input<Events[N]>
          ? { name: N; payload?: z.input<Events[N]> }
          : { name: N; payload: z.input<Events[N]> };
      }[keyof Events & string];

/**
 * What `ctx.setProgress` takes, by the workflow's `progress` schema: its input (not `undefined`,
 * which is no JSON), any value without one.
 */
type ProgressInput<ProgressSchema extends Schema | undefined> = ProgressSchema extends Schema
  ? Exclude<z.input<ProgressSchema>, undefined>
  : unknown;

export interface WorkflowOptions<
  Name extends string,
  InputSchema extends Schema,
  Output,
  Events extends EventSchemas = AnyEvents,
  ProgressSchema extends Schema | undefined = undefined,
> {
  /** Unique among the app's workflows: letters, digits, `-` and `_`, starting with a letter. */
  readonly name: Name;
  readonly input: InputSchema;
  /** Checks the run's result: one that fails it fails the instance. @default none */
  readonly output?: Schema;
  /**
   * Checks (and types) what the run gives `ctx.setProgress`: a value it refuses pauses the run,
   * as a misuse of `ctx` does. @default any JSON
   * @example progress: z.object({ stage: z.enum(['charging', 'packing', 'shipped']) })
   */
  readonly progress?: ProgressSchema;
  /**
   * The events it takes, by name, with their payloads' schemas: `ctx.waitForEvent(name)` then
   * resolves with the parsed payload's type, `client.signal(ref, name, payload)` is checked
   * against them when compiled, and an unknown name or a bad payload is refused at the door.
   * Without it, any name and payload are taken (and a misspelt name waits for ever).
   * @example events: { approved: z.object({ by: z.string() }), rejected: z.object({}) }
   */
  readonly events?: Events;
  /**
   * The code version, named when a history no longer replays (NON_DETERMINISTIC): raise it with
   * each deploy of a changed `run`. @default '1'
   */
  readonly version?: string;
  /** Whether clients may start, signal, cancel and read it (else only trusted code). @default false */
  readonly public?: boolean;
  /** For a public workflow: whether `caller` may do `request`. @default anyone */
  readonly authorize?: (
    caller: Caller,
    request: WorkflowRequest<z.output<InputSchema>, Events>,
  ) => boolean;
  /**
   * How long a finished instance is kept before it halts (its id may then start anew);
   * `Infinity` keeps it. @default 7 days
   */
  readonly retentionMs?: number;
  /**
   * How long a run may go on from its start: past it the run stops, failed with TIMED_OUT, and
   * ends as after any failure: once the calls under way have replied and its compensations are
   * done (which retry up to about 8 hours by default), so it bounds the run's own work, not its
   * undo. Set when the run starts: a deploy that changes it bounds the runs started after it.
   * @default no limit
   */
  readonly timeoutMs?: number;
  /**
   * Steps run in one turn at most before the turn commits and the run goes on in the next (a
   * turn also starts no step once its steps have run 10 s). @default 10
   */
  readonly maxStepsPerTurn?: number;
  /**
   * The retry policy of undo work (a step's compensation, a `saga.step` in a call's), over
   * its defaults field by field; a `saga.step`'s own `retry` goes over it. @default 20
   * attempts, 1 s doubling to at most an hour: about 8 hours
   */
  readonly compensationRetry?: RetryPolicy;
  /**
   * The workflow: deterministic code between `ctx` commands. Its result is the output (JSON).
   * A `TerminalError` it throws (or a command's error it lets through) fails the instance and
   * runs its compensations; any other error (a bug's TypeError) pauses it until fixed code runs.
   */
  readonly run: (
    ctx: WorkflowContext<Events, ProgressInput<ProgressSchema>, z.input<InputSchema>>,
    input: z.output<InputSchema>,
  ) => Promise<Output>;
}

/**
 * The handlers of a workflow's actor, typed for `ctx.send` from actors; `start`, `signal` and
 * `cancel` are public as the workflow is (`public: boolean`), so clients may send them.
 */
export interface WorkflowHandlers<Input, Events extends EventSchemas = AnyEvents> {
  readonly start: {
    payload: z.ZodType<{ input: Input }, { input: Input }>;
    public: boolean;
    handle: () => WorkflowSummary;
  };
  readonly signal: { payload: Payload<SignalOf<Events>>; public: boolean; handle: Summary };
  readonly cancel: { payload: Payload<{ reason?: string }>; public: boolean; handle: Summary };
  readonly terminate: { payload: Payload<{ reason?: string }>; handle: Summary };
  readonly resume: { payload: Payload<Record<string, never>>; handle: Summary };
}

/** A payload schema whose input is `T` too: what a sender is checked against. */
type Payload<T> = z.ZodType<T, T>;
type Summary = () => WorkflowSummary;

/** The actor type behind a workflow: its state is the instance's record. */
export type WorkflowActor<
  Input = unknown,
  Events extends EventSchemas = AnyEvents,
> = ActorDefinition<string, z.ZodType<WorkflowState>, WorkflowHandlers<Input, Events>>;

/** One instance of a workflow. */
export interface WorkflowRef<
  Input = unknown,
  Output = unknown,
  Events extends EventSchemas = AnyEvents,
  Progress = unknown,
> extends ActorRef<WorkflowActor<Input, Events>> {
  /** The workflow's name. */
  readonly workflow: string;
  /** Type-only markers; never set. What the run returns: its readers get its JSON. */
  readonly __output?: Output;
  readonly __events?: Events;
  /** What its run gives `ctx.setProgress`: its readers get its JSON. */
  readonly __progress?: Progress;
}

export interface WorkflowDefinition<
  Name extends string,
  InputSchema extends Schema,
  Output,
  Events extends EventSchemas = AnyEvents,
  ProgressSchema extends Schema | undefined = undefined,
> extends WorkflowOptions<Name, InputSchema, Output, Events, ProgressSchema> {
  readonly kind: 'workflow';
  readonly version: string;
  readonly retentionMs: number;
  /** The actor type of its instances: register it with the app (`defineApp` does). */
  readonly actor: WorkflowActor<z.input<InputSchema>, Events>;
  /** @example const order = OrderFlow.ref('order-17'); */
  ref(id: string): WorkflowRef<z.input<InputSchema>, Output, Events, ProgressInput<ProgressSchema>>;
}

export type AnyWorkflowDefinition = WorkflowDefinition<string, any, any, any, any>;
export type InputOf<W extends AnyWorkflowDefinition> = z.input<W['input']>;
/** The output of `W` as it is committed and read back: the JSON of what its run returns. */
export type OutputOf<W extends AnyWorkflowDefinition> = JsonOf<RunOutputOf<W>>;
/** What `W`'s run returns (a ref's `Output`: its readers take its JSON, see {@link OutputOf}). */
type RunOutputOf<W extends AnyWorkflowDefinition> =
  W extends WorkflowDefinition<string, any, infer O, any, any> ? O : never;
export type EventsOf<W extends AnyWorkflowDefinition> =
  W extends WorkflowDefinition<string, any, any, infer E, any> ? E : never;
/** What `W`'s run gives `ctx.setProgress` (its readers get its JSON): `unknown` without a schema. */
export type ProgressOf<W extends AnyWorkflowDefinition> =
  W extends WorkflowDefinition<string, any, any, any, infer P> ? ProgressInput<P> : unknown;
/** The ref of an instance of `W`, typed by its input, output and events. */
export type WorkflowRefOf<W extends AnyWorkflowDefinition> = WorkflowRef<
  InputOf<W>,
  RunOutputOf<W>,
  EventsOf<W>,
  ProgressOf<W>
>;

const NAME = /^[A-Za-z][A-Za-z0-9_-]*$/;
/** The longest finite `retentionMs` or `timeoutMs`. */
const MAX_SPAN_MS = 1e14;
/** The reserved actor type of a workflow's instances. */
export const workflowActorType = (name: string) => `${WORKFLOW_TYPE_PREFIX}${name}`;
const WORKFLOW = Symbol.for('baton.workflow');

/** The workflow whose instances are actors of `definition`'s type, if it is one. */
export function workflowOf(definition: unknown): AnyWorkflowDefinition | undefined {
  return (definition as Record<symbol, AnyWorkflowDefinition> | undefined)?.[WORKFLOW];
}

/**
 * Defines a workflow: a durable function whose every step commits with its progress.
 *
 * @example
 * const Checkout = workflow({
 *   name: 'checkout',
 *   input: z.object({ orderId: z.string(), amount: z.number() }),
 *   run: async (ctx, { orderId, amount }) => {
 *     const charge = await ctx.step('charge', ({ key }) => payments.charge(amount, key));
 *     await ctx.call(Stock.ref(orderId), 'reserve', { qty: 1 });
 *     await ctx.sleep(24 * 3600_000);
 *     return { charge };
 *   },
 * });
 * export default defineApp({ actors: [Stock], workflows: [Checkout] });
 */
export function workflow<
  const Name extends string,
  InputSchema extends Schema,
  Output,
  Events extends EventSchemas = AnyEvents,
  ProgressSchema extends Schema | undefined = undefined,
>(
  options: WorkflowOptions<Name, InputSchema, Output, Events, ProgressSchema>,
): WorkflowDefinition<Name, InputSchema, Output, Events, ProgressSchema> {
  checkOptions(options);
  const type = workflowActorType(options.name);
  const definition = {
    ...options,
    kind: 'workflow',
    version: options.version ?? '1',
    retentionMs: options.retentionMs ?? 7 * DAY,
  } as WorkflowDefinition<Name, InputSchema, Output, Events, ProgressSchema> & {
    actor: WorkflowActor;
  };
  const actorOptions = {
    name: type,
    state: anyState,
    initial: () => ({ status: 'new', journal: [], completed: 0, signals: [], notify: [] }),
    handlers: traceCommands(options.name, workflowHandlers(definition)) as never,
  };
  // The one actor whose name may take the workflows' prefix.
  const generated = actor({
    ...actorOptions,
    [WORKFLOW_ACTOR]: true,
  } as typeof actorOptions) as unknown as WorkflowActor;
  Object.defineProperty(generated, WORKFLOW, { value: definition });
  Object.defineProperty(definition, BUILT_IN_QUERIES, { value: workflowQueries });
  Object.assign(definition, {
    actor: generated,
    ref(id: string) {
      // A ref's `id` is its actor's (`wf-<name>/<instance id>`): passed back here by mistake,
      // it would name another instance, never started, and a signal to it would wait there.
      if (typeof id === 'string' && id.startsWith(`${type}/`)) {
        const key = id.slice(type.length + 1);
        throw new BatonError(
          ErrorCode.INVALID_REF,
          `${options.name}.ref(${JSON.stringify(id)}): that is the actor id of instance ${JSON.stringify(key)} (a ref's .id), not an instance id: pass the instance id, a ref's .key — ${options.name}.ref(${JSON.stringify(key)})`,
          { details: { workflow: options.name, id } },
        );
      }
      return { ...generated.ref(id), workflow: options.name };
    },
  });
  return definition;
}

/**
 * The ref of instance `key` as stored, for operators' tools that reach an instance by its stored
 * key (`baton workflows`, `baton dev`'s resume of paused instances): `definition.ref` refuses a
 * key that begins as its actor ids do, which an instance an earlier Baton started may have.
 */
export function storedInstanceRef<W extends AnyWorkflowDefinition>(
  definition: W,
  key: string,
): WorkflowRef {
  return { ...definition.actor.ref(key), workflow: definition.name } as WorkflowRef;
}

/** The instance's state is the engine's own; its shape is checked where it is made. */
const anyState = {
  safeParse: (value: unknown) =>
    typeof value === 'object' && value !== null
      ? { success: true, data: value }
      : { success: false, error: { issues: [{ path: [], message: 'expected an object' }] } },
} as unknown as Schema;

function checkOptions(options: WorkflowOptions<string, Schema, unknown, any, any>): void {
  const problems: string[] = [];
  if (typeof options?.name !== 'string' || !NAME.test(options.name)) {
    problems.push('name must be a letter followed by letters, digits, "-" or "_"');
  } else {
    const long = nameTooLong(workflowActorType(options.name));
    if (long) problems.push(`name is too long: as its actor type "wf-<name>", ${long}`);
  }
  if (typeof options?.input?.safeParse !== 'function') problems.push('input must be a zod schema');
  for (const what of ['output', 'progress'] as const) {
    const schema = options?.[what] as Schema | undefined;
    if (schema !== undefined && typeof schema?.safeParse !== 'function') {
      problems.push(`${what} must be a zod schema`);
    }
  }
  checkEvents(options?.events, problems);
  if (typeof options?.run !== 'function')
    problems.push('run must be an async function (ctx, input)');
  if (options?.authorize !== undefined && options.public !== true) {
    problems.push(
      'authorize applies to public workflows only: add public: true, or drop authorize',
    );
  }
  const positive = (what: string, value: unknown) => {
    if (
      value !== undefined &&
      !(typeof value === 'number' && Number.isFinite(value) && value > 0)
    ) {
      problems.push(`${what} must be a number > 0`);
    }
  };
  // A span a timer is set for: a timer's moment must be a date (see `dueAt`).
  const span = (what: string, value: unknown) => {
    if (value === undefined || value === Number.POSITIVE_INFINITY) return;
    if (!(typeof value === 'number' && value > 0 && value <= MAX_SPAN_MS)) {
      problems.push(
        `${what} must be a number of ms > 0 and at most 1e14 (about 3,000 years), or Infinity for no limit`,
      );
    }
  };
  span('retentionMs', options?.retentionMs);
  positive('maxStepsPerTurn', options?.maxStepsPerTurn);
  span('timeoutMs', options?.timeoutMs);
  if (options?.version !== undefined && (typeof options.version !== 'string' || !options.version)) {
    problems.push('version must be a non-empty string');
  }
  try {
    checkRetryPolicy('compensationRetry', options?.compensationRetry);
  } catch (error) {
    problems.push((error as Error).message);
  }
  if (problems.length > 0) {
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      `workflow "${String(options?.name)}" is not valid: ${problems.join('; ')}`,
      { details: { problems } },
    );
  }
}

function checkEvents(events: unknown, problems: string[]): void {
  if (events === undefined) return;
  if (typeof events !== 'object' || events === null || Array.isArray(events)) {
    problems.push('events must be an object of zod schemas by event name');
    return;
  }
  for (const [name, schema] of Object.entries(events)) {
    if (typeof (schema as Schema | undefined)?.safeParse !== 'function') {
      problems.push(`events.${name} must be a zod schema (the payload's)`);
    }
  }
}
