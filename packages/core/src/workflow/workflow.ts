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
import type { Schema } from '../schema.ts';
import { traceCommands } from './commandSpans.ts';
import { workflowHandlers } from './handlers.ts';
import type { WorkflowState, WorkflowSummary } from './journal.ts';
import { checkRetryPolicy } from './retry.ts';
import type { RetryPolicy, WorkflowContext } from './WorkflowContext.ts';

/** What an `authorize` check of a workflow is asked: who wants to do what to which instance. */
export type WorkflowRequest<Input = unknown> =
  | { readonly action: 'start'; readonly id: string; readonly input: Input }
  | { readonly action: 'signal'; readonly id: string; readonly event: string }
  | { readonly action: 'cancel'; readonly id: string }
  | { readonly action: 'read'; readonly id: string };

export interface WorkflowOptions<Name extends string, InputSchema extends Schema, Output> {
  /** Unique among the app's workflows: letters, digits, `-` and `_`, starting with a letter. */
  readonly name: Name;
  readonly input: InputSchema;
  /** Checks the run's result: one that fails it fails the instance. @default none */
  readonly output?: Schema;
  /** Named events `ctx.waitForEvent` takes, with their payloads' schemas (checked at the door). */
  readonly events?: Readonly<Record<string, Schema>>;
  /**
   * The code version, named when a history no longer replays (NON_DETERMINISTIC): raise it with
   * each deploy of a changed `run`. @default '1'
   */
  readonly version?: string;
  /** Whether clients may start, signal, cancel and read it (else only trusted code). @default false */
  readonly public?: boolean;
  /** For a public workflow: whether `caller` may do `request`. @default anyone */
  readonly authorize?: (caller: Caller, request: WorkflowRequest<z.output<InputSchema>>) => boolean;
  /**
   * How long a finished instance is kept before it halts (its id may then start anew);
   * `Infinity` keeps it. @default 7 days
   */
  readonly retentionMs?: number;
  /** Steps run in one turn at most before the turn commits and the run goes on in the next. @default 10 */
  readonly maxStepsPerTurn?: number;
  /** The retry policy of compensations. @default 3 attempts */
  readonly compensationRetry?: RetryPolicy;
  /** The workflow: deterministic code between `ctx` commands. Its result is the output (JSON). */
  readonly run: (ctx: WorkflowContext, input: z.output<InputSchema>) => Promise<Output>;
}

/** The handlers of a workflow's actor, typed for `ctx.send` from actors. */
export interface WorkflowHandlers<Input> {
  readonly start: {
    payload: z.ZodType<{ input: Input }, { input: Input }>;
    handle: () => WorkflowSummary;
  };
  readonly signal: { payload: Payload<{ name: string; payload?: unknown }>; handle: Summary };
  readonly cancel: { payload: Payload<{ reason?: string }>; handle: Summary };
  readonly terminate: { payload: Payload<{ reason?: string }>; handle: Summary };
  readonly resume: { payload: Payload<Record<string, never>>; handle: Summary };
}

/** A payload schema whose input is `T` too: what a sender is checked against. */
type Payload<T> = z.ZodType<T, T>;
type Summary = () => WorkflowSummary;

/** The actor type behind a workflow: its state is the instance's record. */
export type WorkflowActor<Input = unknown> = ActorDefinition<
  string,
  z.ZodType<WorkflowState>,
  WorkflowHandlers<Input>
>;

/** One instance of a workflow. */
export interface WorkflowRef<Input = unknown, Output = unknown>
  extends ActorRef<WorkflowActor<Input>> {
  /** The workflow's name. */
  readonly workflow: string;
  /** Type-only marker; never set. */
  readonly __output?: Output;
}

export interface WorkflowDefinition<Name extends string, InputSchema extends Schema, Output>
  extends WorkflowOptions<Name, InputSchema, Output> {
  readonly kind: 'workflow';
  readonly version: string;
  readonly retentionMs: number;
  /** The actor type of its instances: register it with the app (`defineApp` does). */
  readonly actor: WorkflowActor<z.input<InputSchema>>;
  /** @example const order = OrderFlow.ref('order-17'); */
  ref(id: string): WorkflowRef<z.input<InputSchema>, Output>;
}

export type AnyWorkflowDefinition = WorkflowDefinition<string, any, any>;
export type InputOf<W extends AnyWorkflowDefinition> = z.input<W['input']>;
export type OutputOf<W extends AnyWorkflowDefinition> =
  W extends WorkflowDefinition<string, Schema, infer O> ? O : never;

const NAME = /^[A-Za-z][A-Za-z0-9_-]*$/;
const DAY = 24 * 60 * 60 * 1000;
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
export function workflow<const Name extends string, InputSchema extends Schema, Output>(
  options: WorkflowOptions<Name, InputSchema, Output>,
): WorkflowDefinition<Name, InputSchema, Output> {
  checkOptions(options);
  const type = workflowActorType(options.name);
  const definition = {
    ...options,
    kind: 'workflow',
    version: options.version ?? '1',
    retentionMs: options.retentionMs ?? 7 * DAY,
  } as WorkflowDefinition<Name, InputSchema, Output> & { actor: WorkflowActor };
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
  Object.assign(definition, {
    actor: generated,
    ref(id: string) {
      return { ...generated.ref(id), workflow: options.name };
    },
  });
  return definition;
}

/** The instance's state is the engine's own; its shape is checked where it is made. */
const anyState = {
  safeParse: (value: unknown) =>
    typeof value === 'object' && value !== null
      ? { success: true, data: value }
      : { success: false, error: { issues: [{ path: [], message: 'expected an object' }] } },
} as unknown as Schema;

function checkOptions(options: WorkflowOptions<string, Schema, unknown>): void {
  const problems: string[] = [];
  if (typeof options?.name !== 'string' || !NAME.test(options.name)) {
    problems.push('name must be a letter followed by letters, digits, "-" or "_"');
  }
  if (typeof options?.input?.safeParse !== 'function') problems.push('input must be a zod schema');
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
  if (options?.retentionMs !== Number.POSITIVE_INFINITY)
    positive('retentionMs', options?.retentionMs);
  positive('maxStepsPerTurn', options?.maxStepsPerTurn);
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
