/**
 * Drives an instance in its actor's turn: replays and carries on its run, then records where it
 * stands — suspended, finished, or paused (on a history its code no longer replays, or on an
 * unexpected error its run threw).
 */
import type { ActorContext } from '../ActorContext.ts';
import { ANONYMOUS } from '../caller.ts';
import { COMMIT_FIRST, CONFIRM_RECORD, TURN_DEADLINE, type TurnDeadline } from '../contextSlots.ts';
import { BatonError, ErrorCode, type SerializedError } from '../errors.ts';
import { parseActorId } from '../shared/actorId.ts';
import { jsonSize } from '../shared/jsonSize.ts';
import { callbackToken } from './callbackToken.ts';
import { workflowSpan } from './commandSpans.ts';
import { beginNextRun } from './continueAsNew.ts';
import { disarmDeadline } from './deadline.ts';
import { readSealed, sealHistory } from './history.ts';
import {
  endOfChild,
  FINAL_STATUSES,
  type Outcome,
  recordEntries,
  type WorkflowState,
  type WorkflowStatus,
} from './journal.ts';
import { journalError } from './journalError.ts';
import { MAX_JOURNAL_VALUE_BYTES } from './journalLimits.ts';
import { Replayer } from './Replayer.ts';
import { AWAITS_OUTSIDE, RUN_THREW, thrownText } from './replayErrors.ts';
import type { ReplayHost } from './replayTypes.ts';
import { EXPIRE_TIMER } from './retentionTimer.ts';
import { warmRuns } from './warmRuns.ts';
import type { AnyWorkflowDefinition } from './workflow.ts';

type Ctx = ActorContext<WorkflowState>;

/** Replays the run and carries it on as far as this turn goes. */
export async function advance(definition: AnyWorkflowDefinition, ctx: Ctx): Promise<void> {
  const { state } = ctx;
  if (state.status === 'new' || FINAL_STATUSES.has(state.status)) return;
  const host = actorHost(ctx);
  const warm = warmRuns(ctx);
  const replayer =
    warm?.resume(ctx.self.id, definition, state, host) ??
    new Replayer(definition, state, host, {
      sealed: await readSealed(ctx),
      ...(definition.maxStepsPerTurn === undefined
        ? {}
        : { maxStepsPerTurn: definition.maxStepsPerTurn }),
    });
  const result = await replayer.drive();
  const reason = result.kind === 'paused' ? result.error.details.reason : undefined;
  const threw = reason === RUN_THREW;
  // A history that diverged is left as it is, its progress too; one whose run threw is whole,
  // and moves out; one whose run continued as new is forgotten.
  const whole = (result.kind !== 'paused' && result.kind !== 'continued') || threw;
  if (whole) sealHistory(ctx, replayer);
  // A run stopped by awaiting what is no command ran its whole history: its progress too.
  if (whole || reason === AWAITS_OUTSIDE) {
    if (replayer.progress) state.progress = replayer.progress.value;
  }
  if (result.kind === 'suspended') warm?.keep(ctx.self.id, replayer);
  if (result.kind === 'paused') {
    if (state.status !== 'paused') {
      const { cause } = result.error;
      ctx.log.error(
        threw
          ? 'workflow paused: its run threw'
          : 'workflow paused: its code cannot go on from its history',
        {
          workflow: definition.name,
          version: definition.version,
          error: result.error.message,
          ...(threw ? { threw: thrownText(cause) } : {}),
          ...(threw && cause instanceof Error ? { stack: cause.stack } : {}),
        },
      );
    }
    state.status = 'paused';
    // A message thrown whole (an HTTP body) is cut, as the journal cuts errors.
    state.paused = { error: journalError(result.error.toJSON()), version: definition.version };
    // A recheck cannot clear a run that awaits something else than a command, and would do
    // its work outside again: only a deploy and `resume` do.
    const rechecked = result.error.details.reason !== AWAITS_OUTSIDE && recheckLater(ctx);
    // Nothing will carry it on by itself now: what an operator is paged for (a deploy rolling
    // out is not, as long as a recheck is due).
    if (!rechecked) {
      ctx.log.error(WORKFLOW_LEFT_PAUSED_LOG, {
        workflow: definition.name,
        version: definition.version,
        error: result.error.message,
      });
    }
    return;
  }
  state.version = definition.version;
  if (state.paused) {
    delete state.paused;
    delete state.rechecks;
    ctx.cancel(RECHECK_TIMER);
  }
  switch (result.kind) {
    case 'completed':
      finish(definition, ctx, 'completed', { output: result.value });
      return;
    case 'failed':
      finish(definition, ctx, 'failed', { error: result.error.toJSON() });
      return;
    case 'compensated': {
      const { status, error } = state.ending!;
      const failed = result.errors;
      if (failed.length > 0) {
        ctx.log.error(WORKFLOW_COMPENSATIONS_FAILED_LOG, {
          workflow: definition.name,
          version: definition.version,
          status,
          failed: failed.length,
          errors: failed.map((e) => `${e.code}: ${e.message}`),
        });
      }
      finish(definition, ctx, status, {
        error:
          failed.length === 0
            ? error
            : { ...error, details: { ...error.details, compensationErrors: failed } },
      });
      return;
    }
    case 'continued':
      if (replayer.progress) state.progress = replayer.progress.value;
      cancelPending(ctx);
      beginNextRun(definition, ctx, result.input);
      return;
    case 'suspended':
      state.status = busy(state) ? 'running' : 'waiting';
      // More steps are due than a turn runs: the next turn goes on.
      if (result.more) ctx.send(ctx.self as never, '_wake' as never, {} as never);
  }
}

/**
 * What the worker logs (at error) when a turn leaves a workflow instance paused with no replay
 * of it due: its rechecks are used up, or it awaits something else than a command. It goes on
 * only once code that replays its history runs and it is resumed (or a message carries it on).
 */
export const WORKFLOW_LEFT_PAUSED_LOG = 'workflow left paused: no replay of it is due';

/**
 * What the worker logs (at error) when an instance ends with compensations that failed for good
 * (`compensationErrors` in its error): what they were to undo stays done, and nothing will try
 * them again. BatonApp's CompensationFailuresAlarm counts these lines.
 */
export const WORKFLOW_COMPENSATIONS_FAILED_LOG =
  'workflow ended with failed compensations: what they undo stays done';

/** The timer that replays a paused run again (`baton workflows show` reads when it is due). */
export const RECHECK_TIMER = 'wf:recheck';
/** Replays of a paused run on a timer: after 1, 2, 4, 8 and 16 minutes. */
const RECHECKS = 5;
const FIRST_RECHECK_MS = 60_000;

/**
 * A paused run may be a deploy rolling out: old code that met a history the new code wrote (its
 * version may be the same string, as the default is). It is replayed again a few times, minutes
 * apart, so that once the new code runs everywhere it goes on by itself. Code that cannot replay
 * the history stays paused after the last try, at the cost of those few turns. Whether a replay
 * was scheduled.
 */
function recheckLater(ctx: Ctx): boolean {
  const { state } = ctx;
  const done = state.rechecks ?? 0;
  if (done >= RECHECKS) return false;
  state.rechecks = done + 1;
  ctx.schedule(FIRST_RECHECK_MS * 2 ** done, '_wake' as never, {} as never, { id: RECHECK_TIMER });
  return true;
}

/** Ends the instance: its outcome, its parents told, its pending timers cancelled, its expiry set. */
export function finish(
  definition: AnyWorkflowDefinition,
  ctx: Ctx,
  status: WorkflowStatus,
  outcome: { output?: unknown; error?: SerializedError },
): void {
  const { state } = ctx;
  cancelPending(ctx);
  // A run cancelled or terminated while paused: its next recheck would find it ended.
  if (state.rechecks !== undefined) ctx.cancel(RECHECK_TIMER);
  disarmDeadline(ctx);
  state.status = status;
  state.endedAt = ctx.now();
  if (outcome.output !== undefined) state.output = outcome.output;
  if (outcome.error !== undefined) state.error = journalError(outcome.error);
  if (state.ending?.seq !== undefined) state.sagaFrom = state.ending.seq;
  delete state.ending;
  notifyParents(ctx);
  expireAfterRetention(definition, ctx);
}

export { EXPIRE_TIMER } from './retentionTimer.ts';

/**
 * Sets (or moves) the instance's expiry to `retentionMs` from now: a finished instance halts
 * then, and so does one never started that holds only what came for its start (signals, a
 * parent's end of a start still on its way), else messages to an id nobody starts would leave
 * records for good. When the timer fires, the retention of the code running then decides (see
 * `_expire`): a deploy that raised it keeps the instance longer.
 */
export function expireAfterRetention(
  definition: AnyWorkflowDefinition,
  ctx: Ctx,
  retentionMs = definition.retentionMs,
): void {
  if (Number.isFinite(retentionMs)) {
    ctx.schedule(retentionMs, '_expire' as never, {} as never, { id: EXPIRE_TIMER });
  }
}

/** The longest an id never started keeps the events sent to it, whatever its `retentionMs`. */
export const HELD_EVENTS_MAX_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * How long an id never started keeps the events sent to it for a start that may not come: its
 * `retentionMs`, at most {@link HELD_EVENTS_MAX_MS} (so `Infinity`, which keeps finished
 * instances, does not keep what anyone signals to ids nobody starts).
 */
export function heldEventsMs(definition: AnyWorkflowDefinition): number {
  return Math.min(definition.retentionMs, HELD_EVENTS_MAX_MS);
}

/**
 * Cancels every pending command: waits end, timers never fire, and child instances still
 * running are sent `children` (`cancel`: their compensations run; `terminate`) with this turn,
 * so none outlives its parent. With `keepCalls`, calls under way stay pending (their replies
 * still come, and a successful one's compensation runs), and so do the commands compensations
 * issued (a race loser's undo).
 */
export function cancelPending(
  ctx: Ctx,
  {
    keepCalls = false,
    children = 'cancel',
  }: { keepCalls?: boolean; children?: 'cancel' | 'terminate' } = {},
): void {
  for (const entry of recordEntries(ctx.state)) {
    if (entry.state !== 'pending') continue;
    // A cancel waits for the calls under way and for what compensations issued (the saga runs).
    if (keepCalls && (entry.kind === 'call' || entry.saga)) continue;
    entry.state = 'cancelled';
    if (entry.until !== undefined || entry.retryAt !== undefined) ctx.cancel(`wf:${entry.seq}`);
    const child = entry.kind === 'child' && entry.child ? parseActorId(entry.child) : undefined;
    if (child) {
      const reason = `its parent ${ctx.self.key} ended`;
      const end = endOfChild(ctx.state, entry.seq, reason);
      ctx.send({ ...child, id: entry.child } as never, children as never, end as never);
    }
  }
}

/** Whether the run waits on work (a step, a call, a child) rather than on time or the outside. */
function busy(state: WorkflowState): boolean {
  return recordEntries(state).some(
    (e) =>
      e.state === 'pending' &&
      (e.kind === 'step' || e.kind === 'call' || e.kind === 'child' || e.kind === 'compensate'),
  );
}

/** What the replayer does to the world, through the actor's context. */
function actorHost(ctx: Ctx): ReplayHost {
  const send = ctx.send as (to: unknown, name: string, payload: unknown) => void;
  return {
    self: ctx.self,
    caller: ctx.state.caller ?? ANONYMOUS,
    log: ctx.log,
    now: () => ctx.now(),
    random: () => ctx.random(),
    uuid: () => ctx.uuid(),
    secret: callbackToken.secret,
    ask: (seq, to, name, payload, timeoutMs) =>
      (ctx.ask as (...args: unknown[]) => unknown)(to, name, payload, {
        onReply: '_reply',
        // The run too: a run that continued as new numbers its commands from 0 again.
        context: { seq, run: ctx.state.runId },
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
      }),
    send: (to, name, payload) => send(to, name, payload),
    schedule: (seq, at, kind) =>
      ctx.schedule(new Date(at), '_timer' as never, { seq, kind } as never, { id: `wf:${seq}` }),
    cancelTimer: (seq) => ctx.cancel(`wf:${seq}`),
    // In the workflow's trace, also in a turn a client's signal began (see commandSpans.ts).
    span: workflowSpan(ctx),
    confirm: (ctx as unknown as Record<symbol, (() => Promise<void>) | undefined>)[CONFIRM_RECORD],
    commitFirst: (ctx as unknown as Record<symbol, (() => void) | undefined>)[COMMIT_FIRST],
    deadline: (ctx as unknown as Record<symbol, TurnDeadline | undefined>)[TURN_DEADLINE],
  };
}

/** Tells every parent awaiting this instance its outcome. */
export function notifyParents(ctx: Ctx): void {
  const { state } = ctx;
  const outcome: Outcome =
    state.status === 'completed'
      ? { ok: true, value: state.output }
      : {
          ok: false,
          error:
            state.error ??
            new BatonError(ErrorCode.CANCELLED, `workflow instance ${ctx.self.key} ended`).toJSON(),
        };
  for (const { actor, seq, run } of state.notify) tellParent(ctx, { actor, seq, run }, outcome);
  state.notify = [];
}

/** Tells parent `actor` the outcome of its child command `seq` (of its run `run`). */
export function tellParent(
  ctx: Ctx,
  { actor, seq, run }: { actor: string; seq: number; run?: string | undefined },
  outcome: Outcome,
): void {
  const parent = parseActorId(actor);
  if (!parent) return;
  const told = outcome.ok ? childOutputFits(ctx.self.id, outcome.value) : outcome;
  const done = run === undefined ? { seq, outcome: told } : { seq, outcome: told, run };
  ctx.send({ ...parent, id: actor } as never, '_childDone' as never, done as never);
}

/**
 * A child's output as its parent's journal takes it: as it is, or, past what a workflow journals
 * per value, MESSAGE_TOO_LARGE (the parent's `ctx.child` rejects). A run's output is capped so
 * (its run fails), but an instance an earlier Baton let complete with a larger one may still be
 * taken as a child, and a parent's worker may run an earlier Baton (see `_childDone`).
 */
export function childOutputFits(child: string, value: unknown): Outcome {
  const size = jsonSize(value);
  if (size <= MAX_JOURNAL_VALUE_BYTES) return { ok: true, value };
  const error = new BatonError(
    ErrorCode.MESSAGE_TOO_LARGE,
    `the output of child workflow ${child} is ${size} bytes, more than the ${MAX_JOURNAL_VALUE_BYTES} a workflow journals per value, so its parent's ctx.child fails: have the child return a reference to large data stored elsewhere`,
    { details: { child, size, limit: MAX_JOURNAL_VALUE_BYTES } },
  );
  return { ok: false, error: error.toJSON() };
}
