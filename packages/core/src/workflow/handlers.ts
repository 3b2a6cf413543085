/**
 * The handlers of a workflow's actor. Each journals what its message brings (a start, an event,
 * a reply, a timer's fire) and then drives the run (see `advance.ts`).
 */
import type { ActorContext } from '../ActorContext.ts';
import type { Authorize } from '../actor.ts';
import { BatonError, ErrorCode, type SerializedError } from '../errors.ts';
import { TOKEN_GUARDED } from '../shared/tokenGuarded.ts';
import {
  advance,
  cancelPending,
  childOutputFits,
  EXPIRE_TIMER,
  expireAfterRetention,
  finish,
  heldEventsMs,
  notifyParents,
  tellParent,
} from './advance.ts';
import { pendingCallback } from './callbackToken.ts';
import { armDeadline, type Deadline, timedOut } from './deadline.ts';
import { dropEarlierPages, dropHistory } from './history.ts';
import {
  begin,
  cancelled,
  type End,
  endBeforeStart,
  ofEarlierRun,
  startedAlike,
  startedByEarlierRun,
  startedOtherwise,
  takeEndedStart,
  taken,
} from './instanceStart.ts';
import {
  entryAt,
  FINAL_STATUSES,
  type JournalEntry,
  type Outcome,
  recordCompletion,
  recordEntries,
  sealedCount,
  summarize,
  type WorkflowState,
  type WorkflowSummary,
} from './journal.ts';
import { journalError } from './journalError.ts';
import { heldEventsFull, journalValueTooLarge, replyTooLarge } from './journalLimits.ts';
import { endedBeforeEvent } from './lateEvent.ts';
import { mayReadWorkflow } from './readAccess.ts';
import {
  callbackPayload,
  childPayload,
  endPayload,
  internalPayload,
  signalPayload,
  startPayload,
} from './schemas.ts';
import type { AnyWorkflowDefinition, WorkflowRequest } from './workflow.ts';

type Ctx = ActorContext<WorkflowState>;

/** The generated actor's handlers for `definition`. */
export function workflowHandlers(definition: AnyWorkflowDefinition): Record<string, unknown> {
  const open = definition.public === true;
  /** `public` and, for a public workflow with `authorize`, the check for `action`. */
  const access = (request: (key: string, payload: never) => WorkflowRequest) => {
    if (!open) return {};
    const check = definition.authorize;
    const authorize: Authorize<never> = (caller, target, payload) =>
      check ? check(caller, request(target.key, payload) as never) : true;
    return { public: true, authorize };
  };
  const readable = (ctx: Ctx) => mayReadWorkflow(definition, ctx.caller, ctx.self.key);
  // The reply of start, signal, cancel: the instance's summary, to a caller who may read it.
  const summary = (ctx: Ctx): WorkflowSummary | { readonly id: string } =>
    readable(ctx) ? summarize(ctx.self.key, ctx.state) : { id: ctx.self.key };
  const settle = async (ctx: Ctx, entry: JournalEntry | undefined, outcome: Outcome) => {
    if (entry?.state !== 'pending') return;
    recordCompletion(ctx.state, entry, outcome, ctx.now());
    if (entry.until !== undefined) ctx.cancel(`wf:${entry.seq}`);
    await advance(definition, ctx);
  };

  /**
   * Ends the run from outside (a cancel, its deadline): what it waits for is cancelled and its
   * compensations run, then it ends with `status` and `error`.
   */
  const endRun = async (ctx: Ctx, status: 'failed' | 'cancelled', error: SerializedError) => {
    const { state } = ctx;
    // A call under way may be applied still: its reply is awaited (see Replayer's runner).
    cancelPending(ctx, { keepCalls: true });
    state.ending = {
      status,
      error: journalError(error),
      seq: sealedCount(state) + state.journal.length,
    };
    // A paused run stays paused, the end recorded: its compensations are the code's, so they
    // run once a replay succeeds (a recheck, or `resume` after a deploy); `terminate` ends it
    // without them. The end gets rechecks of its own, the last ones maybe spent.
    if (state.status === 'paused') delete state.rechecks;
    await advance(definition, ctx);
  };

  return {
    start: {
      payload: startPayload(definition.input),
      ...access((id, { input }: { input: unknown }) => ({ action: 'start', id, input })),
      handle: async (ctx: Ctx, { input }: { input: unknown }) => {
        if (ctx.state.status === 'new') {
          // An id its ref() refuses (one that begins as its actor ids do) is refused here too:
          // a door that takes an actor's id (`POST /send`) does not build the ref.
          definition.ref(ctx.self.key);
          begin(ctx, input);
          armDeadline(definition, ctx);
          await advance(definition, ctx);
        } else {
          const refused = startedOtherwise(
            definition,
            ctx.self.key,
            ctx.state,
            input,
            readable(ctx),
          );
          if (refused) throw refused;
        }
        return summary(ctx);
      },
    },
    signal: {
      payload: signalPayload(definition.events),
      ...access((id, { name }: { name: string }) => ({ action: 'signal', id, event: name })),
      handle: async (ctx: Ctx, { name, payload }: { name: string; payload: unknown }) => {
        const { state } = ctx;
        // Not taken, and said so: a retry of one taken before the end is answered by its outcome.
        if (FINAL_STATUSES.has(state.status)) {
          throw endedBeforeEvent(ctx.self.key, state.status, name, readable(ctx));
        }
        const tooLarge = journalValueTooLarge(`the payload of event "${name}"`, payload);
        if (tooLarge) throw tooLarge;
        const waiting = recordEntries(state).find(
          (e) => e.kind === 'event' && e.name === name && e.state === 'pending',
        );
        if (waiting) await settle(ctx, waiting, { ok: true, value: payload });
        else {
          const full = heldEventsFull(state.signals, name, payload);
          if (full) throw full;
          state.signals.push({ name, payload, at: ctx.now() });
          // Kept for a start that may never come: for the retention after the latest (a week
          // at most).
          if (state.status === 'new')
            expireAfterRetention(definition, ctx, heldEventsMs(definition));
        }
        return summary(ctx);
      },
    },
    cancel: {
      payload: endPayload,
      ...access((id) => ({ action: 'cancel', id })),
      handle: async (ctx: Ctx, end: End) => {
        const { state } = ctx;
        const { reason } = end;
        if (state.status === 'new') endBeforeStart(definition, ctx, 'cancelled', end);
        if (state.status === 'new' || FINAL_STATUSES.has(state.status) || state.ending) {
          return summary(ctx);
        }
        await endRun(ctx, 'cancelled', cancelled(ctx, 'cancelled', reason));
        return summary(ctx);
      },
    },
    terminate: {
      payload: endPayload,
      handle: (ctx: Ctx, end: End) => {
        const { state } = ctx;
        const { reason } = end;
        if (state.status === 'new') endBeforeStart(definition, ctx, 'terminated', end);
        else if (!FINAL_STATUSES.has(state.status)) {
          cancelPending(ctx, { children: 'terminate' });
          finish(definition, ctx, 'terminated', { error: cancelled(ctx, 'terminated', reason) });
        }
        return summary(ctx);
      },
    },
    resume: {
      payload: internalPayload,
      handle: async (ctx: Ctx) => {
        if (ctx.state.status === 'paused') await advance(definition, ctx);
        return summary(ctx);
      },
    },
    callback: {
      payload: callbackPayload,
      // The token is the authorization: whoever holds it may complete this callback, once.
      public: true,
      [TOKEN_GUARDED]: true,
      handle: async (
        ctx: Ctx,
        body: { token: string; ok: boolean; value?: unknown; error?: string },
      ) => {
        const entry = pendingCallback(ctx.state, ctx.self.id, body.token);
        const tooLarge = journalValueTooLarge(`the value of callback "${entry.name}"`, body.value);
        if (tooLarge) throw tooLarge;
        const outcome: Outcome = body.ok
          ? { ok: true, value: body.value }
          : {
              ok: false,
              error: new BatonError(
                ErrorCode.REJECTED,
                body.error ?? `callback "${entry.name}" failed`,
                { details: { callback: entry.name } },
              ).toJSON(),
            };
        await settle(ctx, entry, outcome);
        return { accepted: true };
      },
    },
    _child: {
      payload: childPayload(definition.input),
      handle: async (
        ctx: Ctx,
        { input, seq, run }: { input: unknown; seq: number; run?: string },
      ) => {
        const { state } = ctx;
        const parent = ctx.caller.kind === 'actor' ? ctx.caller.actor : undefined;
        if (!parent) return summary(ctx);
        if (state.status !== 'new' && !startedAlike(definition, state, input)) {
          // A run someone else started, or with another input (a user may start a public
          // workflow first at the id a parent will use): its output is not the parent's.
          tellParent(ctx, { actor: parent, seq, run }, { ok: false, error: taken(ctx) });
          return summary(ctx);
        }
        if (state.status !== 'new' && ofEarlierRun(state, parent, run)) {
          // The child of an earlier run of the parent's id: its work was done for that run.
          const error = startedByEarlierRun(ctx);
          tellParent(ctx, { actor: parent, seq, run }, { ok: false, error });
          return summary(ctx);
        }
        state.notify.push(run === undefined ? { actor: parent, seq } : { actor: parent, seq, run });
        const ended = state.status === 'new' ? takeEndedStart(state, parent, seq, run) : undefined;
        if (ended) finish(definition, ctx, ended.status, { error: ended.error });
        else if (state.status === 'new') {
          begin(ctx, input);
          armDeadline(definition, ctx);
          if (run !== undefined) state.parentRun = run;
          await advance(definition, ctx);
        } else if (FINAL_STATUSES.has(state.status)) notifyParents(ctx);
        return summary(ctx);
      },
    },
    _childDone: {
      payload: internalPayload,
      handle: async (
        ctx: Ctx,
        { seq, outcome, run }: { seq: number; outcome: Outcome; run?: string },
      ) => {
        const entry = entryAt(ctx.state, seq);
        // Only the child the command started, for this run: a child of an earlier run of this
        // id (ended, then started again) tells of a command of that run, which may share `seq`.
        // (An entry journaled before entries named their child is taken from any sender.)
        const from = ctx.caller.kind === 'actor' ? ctx.caller.actor : undefined;
        if (entry?.kind !== 'child') return;
        if (entry.child !== undefined && from !== entry.child) return;
        if (run !== undefined && run !== ctx.state.runId) return;
        // A child on an earlier Baton's worker sends its output whatever its size.
        const told = outcome.ok
          ? childOutputFits(entry.child ?? from ?? '', outcome.value)
          : outcome;
        await settle(ctx, entry, told);
      },
    },
    _reply: {
      payload: internalPayload,
      handle: async (
        ctx: Ctx,
        reply: {
          ok: boolean;
          value?: unknown;
          error?: SerializedError;
          context: { seq: number; run?: string };
        },
      ) => {
        // The reply to a call of a run that continued as new, whose number another command of
        // this run may have: not this run's. (An ask without `run` is an earlier Baton's, of the
        // first run.)
        const run = reply.context?.run;
        if (run !== undefined ? run !== ctx.state.runId : ctx.state.continued !== undefined) return;
        const entry = entryAt(ctx.state, reply.context?.seq);
        if (entry?.kind !== 'call') return;
        const tooLarge = reply.ok ? replyTooLarge(entry.name, reply.value) : undefined;
        await settle(
          ctx,
          entry,
          tooLarge
            ? { ok: false, error: tooLarge.toJSON() }
            : reply.ok
              ? { ok: true, value: reply.value }
              : { ok: false, error: reply.error! },
        );
      },
    },
    _timer: {
      payload: internalPayload,
      handle: async (ctx: Ctx, { seq, kind }: { seq: number; kind: string }) => {
        const entry = entryAt(ctx.state, seq);
        if (entry?.state !== 'pending') return;
        if (kind === 'sleep') await settle(ctx, entry, { ok: true, value: undefined });
        else if (kind === 'timeout') {
          const error = new BatonError(
            ErrorCode.TIMED_OUT,
            `${entry.kind === 'event' ? 'event' : 'callback'} "${entry.name}" did not come within its timeout`,
            { details: { [entry.kind]: entry.name, seq } },
          );
          await settle(ctx, entry, { ok: false, error: error.toJSON() });
        } else if (kind === 'retry') {
          delete entry.retryAt;
          await advance(definition, ctx);
        }
      },
    },
    _wake: {
      payload: internalPayload,
      handle: (ctx: Ctx) => advance(definition, ctx),
    },
    _deadline: {
      payload: internalPayload,
      handle: async (ctx: Ctx, { run, timeoutMs }: Deadline) => {
        const { state } = ctx;
        // The engine's timer alone; not an earlier run's.
        if (ctx.caller.kind !== 'timer' || run !== state.runId) return;
        delete state.deadlineAt; // fired: nothing left to disarm
        // A run that ended, or is ending (cancelled), before it: nothing to time out.
        if (FINAL_STATUSES.has(state.status) || state.ending) return;
        await endRun(ctx, 'failed', timedOut(ctx.self.key, timeoutMs));
      },
    },
    _forget: {
      payload: internalPayload,
      // The pages of runs that continued as new, a turn's worth at a time.
      handle: (ctx: Ctx) => {
        dropEarlierPages(ctx);
        if (ctx.state.earlierPages) ctx.send(ctx.self as never, '_forget' as never, {} as never);
      },
    },
    _expire: {
      payload: internalPayload,
      handle: (ctx: Ctx) => {
        const held = ctx.state.status === 'new';
        if (!held && !FINAL_STATUSES.has(ctx.state.status)) return;
        // The timer was set with the retention of the code that set it: the running code's
        // decides, so one a deploy raised since keeps the instance longer (for good: Infinity).
        if (ctx.caller.kind === 'timer') {
          const end = retentionEnd(definition, ctx.state);
          if (end !== undefined && end > ctx.now()) {
            if (Number.isFinite(end)) {
              ctx.schedule(end - ctx.now(), '_expire' as never, {} as never, { id: EXPIRE_TIMER });
            }
            return;
          }
        }
        // Never started: what it held for its start (signals, a parent's end) goes with it.
        if (held) return ctx.halt();
        // The history's pages go first (a turn forgets so many), then the record halts.
        if (dropHistory(ctx)) ctx.halt();
        else ctx.send(ctx.self as never, '_expire' as never, {} as never);
      },
    },
  };
}

/**
 * When the running code's retention of an instance ends: `retentionMs` after it ended, or, never
 * started, after the latest of what it holds for its start. `undefined` when the record does not
 * tell (written by an earlier Baton): the expiry timer's moment stands.
 */
function retentionEnd(definition: AnyWorkflowDefinition, state: WorkflowState): number | undefined {
  if (state.status !== 'new') {
    return state.endedAt === undefined ? undefined : state.endedAt + definition.retentionMs;
  }
  const signals = latest(state.signals.map((signal) => signal.at));
  const ends = latest((state.endedStarts ?? []).map((ended) => ended.at));
  if (signals === null || ends === null) return undefined;
  if (signals === undefined && ends === undefined) return undefined;
  return Math.max(
    (signals ?? Number.NEGATIVE_INFINITY) + heldEventsMs(definition),
    (ends ?? Number.NEGATIVE_INFINITY) + definition.retentionMs,
  );
}

/** The latest of `times`; `undefined` for none, `null` when one is not known (an earlier Baton's). */
function latest(times: readonly (number | undefined)[]): number | undefined | null {
  if (times.includes(undefined)) return null;
  return times.length === 0 ? undefined : Math.max(...(times as number[]));
}
