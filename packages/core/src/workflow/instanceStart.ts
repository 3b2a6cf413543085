/**
 * How a workflow instance's start is taken: a new run begins (`begin`), a repeat with another
 * input is refused (`startedOtherwise`); a parent's child command
 * takes a run as its own only if trusted code started it with the same input (`startedAlike`,
 * else `taken`); and an end a parent sent before the start came (the start was kept as a dead
 * letter) is kept until the start takes it (`endBeforeStart`, `takeEndedStart`), with the error
 * a cancelled or terminated instance ends with (`cancelled`). The handlers in `handlers.ts` call
 * these from start, `_child`, cancel and terminate.
 */
import type { ActorContext } from '../ActorContext.ts';
import { isTrusted } from '../caller.ts';
import { BatonError, ErrorCode, type SerializedError } from '../errors.ts';
import { digest128 } from '../shared/sha256.ts';
import { EXPIRE_TIMER, expireAfterRetention } from './advance.ts';
import { turnTrace } from './commandSpans.ts';
import { sameInput } from './inputAsRead.ts';
import { type EndedStart, FINAL_STATUSES, RULES, type WorkflowState } from './journal.ts';
import { journalError } from './journalError.ts';
import type { AnyWorkflowDefinition } from './workflow.ts';

type Ctx = ActorContext<WorkflowState>;

/** A cancel's or terminate's payload (see `endPayload`). */
export interface End {
  readonly reason?: string;
  readonly seq?: number;
  readonly run?: string;
}

/**
 * A parent's end of a child it started that came before the start (the start was kept as a dead
 * letter): kept, so that the start, when it comes, ends the child rather than runs it.
 */
export function endBeforeStart(
  definition: AnyWorkflowDefinition,
  ctx: Ctx,
  status: EndedStart['status'],
  end: End,
): void {
  if (ctx.caller.kind !== 'actor' || end.seq === undefined) return;
  const error = journalError(cancelled(ctx, `${status} before it started`, end.reason));
  const { actor } = ctx.caller;
  const at = ctx.now();
  const ended: EndedStart =
    end.run === undefined
      ? { actor, seq: end.seq, status, error, at }
      : { actor, seq: end.seq, run: end.run, status, error, at };
  ctx.state.endedStarts = [...(ctx.state.endedStarts ?? []), ended];
  expireAfterRetention(definition, ctx);
}

/** The end a parent gave the start of its command `seq` before it came, taken out of `state`. */
export function takeEndedStart(
  state: WorkflowState,
  actor: string,
  seq: number,
  run: string | undefined,
): EndedStart | undefined {
  const list = state.endedStarts ?? [];
  const i = list.findIndex((e) => e.actor === actor && e.seq === seq && e.run === run);
  if (i < 0) return undefined;
  const ended = list[i]!;
  const rest = list.filter((_, k) => k !== i);
  if (rest.length > 0) state.endedStarts = rest;
  else delete state.endedStarts;
  return ended;
}

/**
 * Whether a parent's child command may take the run `state` holds as its own: one that trusted
 * code (a parent, an actor, the system) started with the same input.
 */
export function startedAlike(
  definition: AnyWorkflowDefinition,
  state: WorkflowState,
  input: unknown,
): boolean {
  if (!state.caller || !isTrusted(state.caller)) return false;
  return startedWith(definition, state, input);
}

/**
 * Whether `input` (as the workflow's schema parsed it) is the instance's start input: its first
 * run's, whatever run continued it (see inputAsRead.ts's `sameInput`).
 */
const startedWith = (definition: AnyWorkflowDefinition, state: WorkflowState, input: unknown) =>
  sameInput(definition, (state.firstRun ?? state).input, input);

/**
 * Whether the run `state` holds was started as the child of another run of `parent`'s id: an
 * earlier run, since ended and started anew, whose child this stays while it is kept.
 */
export function ofEarlierRun(
  state: WorkflowState,
  parent: string,
  run: string | undefined,
): boolean {
  const { caller, parentRun } = state;
  if (run === undefined || parentRun === undefined || caller?.kind !== 'actor') return false;
  return caller.actor === parent && parentRun !== run;
}

/** The refusal a child command gets for the child of an earlier run of its parent's id. */
export function startedByEarlierRun(ctx: Ctx): SerializedError {
  return new BatonError(
    ErrorCode.REJECTED,
    `workflow instance ${ctx.self.key} is the child of an earlier run of this parent's id, kept longer than that run: its work was done for that run. ` +
      'Derive a child id from ctx.runId when a child may outlive its parent\'s run (a parent started anew, or one that continued as new): e.g. ctx.id + "-" + ctx.runId',
    { details: { child: ctx.self.id } },
  ).toJSON();
}

/** The refusal a parent's child command gets for a run it may not take (see `startedAlike`). */
export function taken(ctx: Ctx): SerializedError {
  return new BatonError(
    ErrorCode.REJECTED,
    `workflow instance ${ctx.self.key} was started by another caller, or with another input: ` +
      'give a child an id only its parent starts (derive it from ctx.id)',
    { details: { child: ctx.self.id } },
  ).toJSON();
}

/**
 * The refusal of a start of instance `key` that ran, or runs, with another input than `input`:
 * its id names that run until it halts. A start with the same input changes nothing (starting is
 * idempotent). The door (the client, before it enqueues) and the start's turn refuse alike; the
 * instance's status, and that it may be read, are said only to a caller who may read it
 * (`readable`). A caller who may not is refused whatever its input: were a start of the same
 * input taken, its answer would tell whether a guess is the input of a run it may not read. (A
 * keyed retry of the start that began the run is answered before this, by its outcome.)
 */
export function startedOtherwise(
  definition: AnyWorkflowDefinition,
  key: string,
  state: WorkflowState,
  input: unknown,
  readable: boolean,
): BatonError | undefined {
  if (!readable) {
    return new BatonError(
      ErrorCode.REJECTED,
      `workflow instance ${key} exists already: this start was not taken. Start another id`,
      { details: { id: key } },
    );
  }
  if (startedWith(definition, state, input)) return undefined;
  const { status } = state;
  const notTaken = 'started with another input: this start was not taken';
  const message = FINAL_STATUSES.has(status)
    ? `workflow instance ${key} ran already (${status}), ${notTaken}, and its id starts anew only once it halts, its retentionMs after it ended. Start another id, or read this instance`
    : `workflow instance ${key} runs already (${status}), ${notTaken}. Start another id, or read (or signal) this instance`;
  return new BatonError(ErrorCode.REJECTED, message, { details: { id: key, status } });
}

/** A new instance: its input, its caller, and a run id no other start of this id shares. */
export function begin(ctx: Ctx, input: unknown): void {
  const { state } = ctx;
  // What it held for its start is its own now: its expiry comes when it ends.
  if (state.signals.length > 0 || state.endedStarts !== undefined) ctx.cancel(EXPIRE_TIMER);
  state.status = 'running';
  // From the starting message: the same when a crashed start is redelivered, so step keys
  // are too (whichever release's worker runs it again); another message (a start after the
  // instance halted) gives another.
  state.runId = digest128(ctx.message.id).slice(0, 16);
  state.stepKeys = 'name';
  state.races = 'commands';
  state.rules = RULES;
  state.thrown = 'pauses';
  state.input = input;
  state.caller = ctx.caller;
  state.startedAt = ctx.now();
  const trace = turnTrace(ctx);
  if (trace) state.trace = trace;
}

/** The error an instance cancelled or terminated ends with (`how`), with the reason given. */
export function cancelled(ctx: Ctx, how: string, reason: string | undefined): SerializedError {
  return new BatonError(
    ErrorCode.CANCELLED,
    `workflow instance ${ctx.self.key} was ${how}${reason ? `: ${reason}` : ''}`,
    { details: { id: ctx.self.key, ...(reason ? { reason } : {}) } },
  ).toJSON();
}
