/**
 * `baton workflows show`: one of a deployed app's workflow instances, with its step history. An
 * instance is the actor `wf-<workflow>/<id>` whose state is its record. Listing them is in
 * `workflowsList.ts`; the actions an operator sends one (cancel, terminate, signal, resume) are
 * in `workflowActions.ts`.
 */
import {
  type JournalEntry,
  type SerializedError,
  WORKFLOW_RUN_THREW,
  type WorkflowState,
} from '@baton/core';
import { readStoredHistory, WORKFLOW_RECHECK_TIMER, workflowSummary } from '@baton/core/engine';
import { causeOf } from './deadLetterCauses.ts';
import { duration, fields, isoTime, table } from './format.ts';
import type { OpsContext } from './OpsContext.ts';
import { instanceId, readInstance, workflowArg } from './workflowInstance.ts';

const iso = (ms: number | undefined) => (ms === undefined ? undefined : isoTime(ms));

/** One journal entry as `show` prints it: no callback secrets. */
function step(entry: JournalEntry) {
  return {
    seq: entry.seq,
    kind: entry.kind,
    name: entry.name,
    ...(entry.to === undefined ? {} : { to: entry.to }),
    // A compensation's command (the saga's, or a race loser's undo), not the run's own.
    ...(entry.saga ? { undo: true } : {}),
    state: entry.state,
    ...(entry.attempts === undefined ? {} : { attempts: entry.attempts }),
    at: iso(entry.at),
    ...(entry.endedAt === undefined ? {} : { endedAt: iso(entry.endedAt) }),
    ...(entry.until === undefined ? {} : { until: iso(entry.until) }),
    ...(entry.retryAt === undefined ? {} : { retryAt: iso(entry.retryAt) }),
    ...(entry.lastError === undefined ? {} : { lastError: entry.lastError }),
    ...(entry.ranMs === undefined ? {} : { ranMs: entry.ranMs }),
    ...(entry.value === undefined ? {} : { value: entry.value }),
    ...(entry.error === undefined ? {} : { error: entry.error }),
  };
}

/** `baton workflows show <workflow> <id>`: its status, outcome and each step. */
export async function workflowsShow(ctx: OpsContext): Promise<void> {
  const name = workflowArg(ctx, 0);
  const id = ctx.arg(1, 'id');
  const state = await readInstance(ctx, name, id);
  const { store } = await ctx.target();
  const [history, letters] = await Promise.all([
    readStoredHistory(store, instanceId(name, id), state),
    store.listDeadLetters(instanceId(name, id)),
  ]);
  const now = ctx.io.now();
  // What waits on an operator: a signal or a reply its code refused, a message parked.
  const deadLetters = letters
    .filter((l) => l.parked === undefined && !l.applied)
    .map((l) => {
      const { code, message } = causeOf(l);
      return {
        messageId: l.messageId,
        name: l.envelope.name,
        at: iso(l.at),
        error: `${code}: ${message}`,
      };
    });
  const parked = letters.filter((l) => l.parked !== undefined).length;
  // What the queries and the client give, with its times as ISO text.
  const { deadlineAt, ...summary } = workflowSummary(id, state);
  const result = {
    workflow: name,
    ...summary,
    ...(state.status === 'paused' ? { nextReplayAt: await nextReplay(ctx, name, id) } : {}),
    startedAt: iso(state.startedAt),
    endedAt: iso(state.endedAt),
    ...(deadlineAt === undefined ? {} : { deadline: iso(deadlineAt) }),
    input: state.input ?? null,
    version: codeVersion(state),
    pendingEvents: state.signals.map((s) => s.name),
    deadLetters,
    parkedMessages: parked,
    history: history.map(step),
  };
  ctx.print(result, (r) => {
    const took =
      state.startedAt === undefined ? undefined : (state.endedAt ?? now) - state.startedAt;
    return [
      fields([
        ['instance', `${name}/${id}`],
        ['status', r.status],
        ...(r.progress === undefined
          ? []
          : ([['progress', clip(JSON.stringify(r.progress))]] as const)),
        ['code version', versionLine(state)],
        ['input', clip(JSON.stringify(r.input))],
        ['started', r.startedAt],
        ...(r.continued === undefined
          ? []
          : ([
              [
                'continued',
                `as new ${r.continued} time(s): started, steps and history are this run's`,
              ],
            ] as const)),
        [
          r.endedAt === undefined ? 'running for' : 'took',
          took === undefined ? undefined : duration(took),
        ],
        ...(r.deadline === undefined ? [] : ([['times out', r.deadline]] as const)),
        ...(r.output === undefined ? [] : ([['output', r.output]] as const)),
        ...(r.error === undefined
          ? []
          : ([['error', `${r.error.code}: ${r.error.message}`]] as const)),
        ...failedCompensations(r.error),
        ...rerunLine(ctx, name, state),
        ...(r.ending === undefined
          ? []
          : ([
              [
                'ending',
                `${r.ending.status === 'cancelled' ? 'cancelled' : 'run failed'} (${r.ending.error.message}): its compensations run, then it ends ${r.ending.status}${r.status === 'paused' ? ', once its code replays' : ''}`,
              ],
            ] as const)),
        // Only while paused (`nextReplayAt` is read only then): an instance terminated while
        // paused keeps why it was, but resumes no more.
        ...(r.paused === undefined || r.nextReplayAt === undefined
          ? []
          : ([
              [
                'paused',
                `${r.paused.error.message} with: ${ctx.followUp`workflows resume ${name} ${id}`}`,
              ],
              [
                'next replay',
                r.nextReplayAt === null
                  ? 'none scheduled: only a resume replays it now'
                  : `${r.nextReplayAt}, on its own (${r.paused.error.details?.reason === WORKFLOW_RUN_THREW ? 'a fix deployed by then carries it on' : 'a deploy still rolling out may have paused it'})`,
              ],
            ] as const)),
        ...(r.pendingEvents.length === 0
          ? []
          : ([['events kept', r.pendingEvents.join(', ')]] as const)),
        ...(r.deadLetters.length === 0
          ? []
          : ([
              [
                'dead letters',
                `${r.deadLetters.length} message(s) it did not apply: ${r.deadLetters.map((l) => `${l.name} (${clip(l.error)})`).join('; ')} — ${lettersHint(ctx, name, id, r.deadLetters)}`,
              ],
            ] as const)),
        ...(r.parkedMessages === 0
          ? []
          : ([
              [
                'parked',
                `${r.parkedMessages} message(s), held while its actor is paused: applied when resumed (${ctx.followUp`actors resume ${instanceId(name, id)}`})`,
              ],
            ] as const)),
      ]),
      '',
      r.history.length === 0
        ? 'no steps yet'
        : table(
            r.history.map((s) => ({
              ...s,
              kind: 'undo' in s ? `${s.kind} (undo)` : s.kind,
              // The last attempt's own time: `at` and `endedAt` are its turn's.
              ran: 'ranMs' in s && s.ranMs !== undefined ? duration(s.ranMs) : undefined,
              result:
                'error' in s && s.error
                  ? `${s.error.code}: ${s.error.message}`
                  : 'value' in s
                    ? JSON.stringify(s.value).slice(0, 60)
                    : 'retryAt' in s
                      ? `next attempt ${s.retryAt}${'lastError' in s ? `, after ${s.lastError}` : ''}`
                      : 'until' in s
                        ? `until ${s.until}`
                        : undefined,
            })),
            ['seq', 'kind', 'name', 'to', 'state', 'attempts', 'at', 'endedAt', 'ran', 'result'],
          ),
    ].join('\n');
  });
}

/**
 * The code version an instance is on: while paused, the one it paused on (which its `paused`
 * line names: a run that threw in its first turn was never replayed by any); else the one that
 * last replayed it. `null` for a record that keeps neither.
 */
function codeVersion(state: WorkflowState): string | null {
  const pausedOn = state.status === 'paused' ? state.paused?.version : undefined;
  return pausedOn ?? state.version ?? state.paused?.version ?? null;
}

/** {@link codeVersion}, with the version that last replayed a paused instance when another. */
function versionLine(state: WorkflowState): string | null {
  const version = codeVersion(state);
  const replayed = state.version;
  return state.status === 'paused' && replayed !== undefined && replayed !== version
    ? `${version}, which it paused on (${replayed} replayed its history last)`
    : version;
}

/**
 * How to run a failed instance again: `resume` takes only a paused one, and an id starts once
 * (while its record is kept), so a new instance, under a new id, with its input.
 */
function rerunLine(
  ctx: OpsContext,
  name: string,
  state: WorkflowState,
): ReadonlyArray<[string, string]> {
  if (state.status !== 'failed') return [];
  const start = JSON.stringify({ input: state.input ?? null });
  const command =
    start.length <= 200
      ? ctx.followUp`send wf-${name}/<new id> start ${start} --app <entry>`
      : ctx.followUp`send wf-${name}/<new id> start '{"input": …}' --app <entry>`;
  return [
    [
      'run again',
      `a failed instance does not run again (resume takes only a paused one): start a new one, under a new id, with its input (--json has it whole), from the app's code (client.start) or with ${command}`,
    ],
  ];
}

/**
 * When a paused instance is replayed again on its own (its recheck timer), as an ISO time; null
 * once none is scheduled (its rechecks used up, or the timer cancelled).
 */
async function nextReplay(ctx: OpsContext, name: string, id: string): Promise<string | null> {
  const { store } = await ctx.target();
  const timers = await store.listTimers(instanceId(name, id));
  const recheck = timers.find((timer) => timer.id === WORKFLOW_RECHECK_TIMER);
  return recheck ? new Date(recheck.at).toISOString() : null;
}

const clip = (text: string) => (text.length <= 80 ? text : `${text.slice(0, 79)}…`);

/** The command that shows an instance's dead letter: by its id when it has one, else how to list them. */
function lettersHint(
  ctx: OpsContext,
  name: string,
  id: string,
  letters: ReadonlyArray<{ readonly messageId: string }>,
): string {
  const [only] = letters;
  const actorId = instanceId(name, id);
  if (letters.length === 1 && only) {
    return `see ${ctx.followUp`dead-letters show ${actorId} ${only.messageId}`}`;
  }
  return `see ${ctx.followUp`dead-letters show ${actorId} <message id>`} (ids: ${ctx.followUp`dead-letters list --type wf-${name}`})`;
}

/**
 * The `compensations failed` line of an instance that ended with compensations that failed for
 * good (its error's `compensationErrors`, as its run kept them), each as `CODE: message`.
 */
function failedCompensations(error: SerializedError | undefined): ReadonlyArray<[string, string]> {
  const failed = error?.details?.compensationErrors;
  if (!Array.isArray(failed) || failed.length === 0) return [];
  const cut = Number(error?.details?.compensationErrorsCut ?? 0);
  const each = (failed as SerializedError[]).map((e) => clip(`${e.code}: ${e.message}`));
  const more = cut > 0 ? `; ${cut} more not kept` : '';
  return [
    [
      'compensations failed',
      `${failed.length + cut}: ${each.join('; ')}${more}. What they undo stays done: fix the cause, then do each undo yourself (docs/operations.md, CompensationFailuresAlarm)`,
    ],
  ];
}
