/**
 * `baton workflows …`: a deployed app's workflow instances — listed by status, one shown with
 * its step history, and cancelled, signalled, resumed or terminated. An instance is the actor
 * `wf-<workflow>/<id>` whose state is its record; the actions are the messages `Client.cancel`,
 * `signal`, `resumeWorkflow` and `terminate` send, as trusted code.
 */
import { listActors } from '@baton/aws';
import {
  type AnyWorkflowDefinition,
  BatonError,
  ErrorCode,
  type JournalEntry,
  type Schema,
  type WorkflowState,
  type WorkflowStatus,
  type WorkflowSummary,
  workflow,
} from '@baton/core';
import { Client } from '@baton/core/client';
import { readStoredHistory, WORKFLOW_RECHECK_TIMER } from '@baton/core/engine';
import { duration, fields, limitOption, table } from './format.ts';
import type { OpsContext } from './OpsContext.ts';
import { shellQuote } from './target.ts';

const STATUSES: readonly WorkflowStatus[] = [
  'running',
  'waiting',
  'paused',
  'completed',
  'failed',
  'cancelled',
  'terminated',
];
const FINAL: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled', 'terminated']);
const NAME = /^[A-Za-z][A-Za-z0-9_-]*$/;

/** The workflow name argument at `index`, checked. */
function workflowArg(ctx: OpsContext, index: number): string {
  const name = ctx.arg(index, 'workflow');
  if (!NAME.test(name)) {
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      `"${name}" is not a workflow name: pass the name given to workflow({ name }), e.g. fulfil (not wf-fulfil/…)`,
    );
  }
  return name;
}

/** The actor id of instance `id` of workflow `name`. */
const instanceId = (name: string, id: string) => `wf-${name}/${id}`;

/** The stored record of an instance; NOT_FOUND when it never started (or expired). */
async function readInstance(ctx: OpsContext, name: string, id: string): Promise<WorkflowState> {
  const { store } = await ctx.target();
  const record = await store.load(instanceId(name, id));
  const state = record?.state as WorkflowState | undefined;
  if (!state || state.status === 'new') {
    throw new BatonError(
      ErrorCode.NOT_FOUND,
      `workflow ${name} has no instance ${id}: it never started, or its retention ended; list them with ${ctx.followUp`workflows list ${name}`}`,
      { details: { workflow: name, id } },
    );
  }
  return state;
}

/** Commands issued in all: those moved out of the record into pages, and the record's. */
const stepsOf = (state: WorkflowState) => (state.sealed?.entries ?? 0) + state.journal.length;

/** An instance's one-line summary, as `list` and `show` print it. */
function summary(id: string, state: WorkflowState): WorkflowSummary {
  return {
    id,
    status: state.status,
    steps: stepsOf(state),
    ...(state.startedAt === undefined ? {} : { startedAt: state.startedAt }),
    ...(state.endedAt === undefined ? {} : { endedAt: state.endedAt }),
    ...(state.output === undefined ? {} : { output: state.output }),
    ...(state.error === undefined ? {} : { error: state.error }),
    ...(state.paused === undefined ? {} : { paused: state.paused }),
  };
}

const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

/**
 * `baton workflows list [<workflow>] [--status s] [--limit n] [--cursor c]`: instances with
 * their status; without a workflow, every workflow of `--app`.
 */
export async function workflowsList(ctx: OpsContext): Promise<void> {
  const status = ctx.values.status;
  if (status !== undefined && !STATUSES.includes(status as WorkflowStatus)) {
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      `--status takes one of ${STATUSES.join(', ')}; got ${status}`,
    );
  }
  const limit = limitOption(ctx.values.limit, 50);
  const names =
    ctx.args.length > 0
      ? [workflowArg(ctx, 0)]
      : (await ctx.app('listing every workflow needs their names')).workflows.map((w) => w.name);
  if (names.length > 1 && ctx.values.cursor) {
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      `--cursor pages one workflow: pass its name, ${ctx.followUp`workflows list <workflow> --cursor …`}`,
    );
  }
  const { dynamodb, names: target } = await ctx.target();
  const instances: Record<string, unknown>[] = [];
  let cursor: string | undefined;
  for (const name of names) {
    // Pages of the type until `limit` instances match the status (or the type ends).
    let from = ctx.values.cursor;
    do {
      const page = await listActors(dynamodb, target.table, `wf-${name}`, {
        limit: limit - instances.length,
        ...(from ? { cursor: from } : {}),
      });
      for (const record of page.records) {
        const state = record.state as WorkflowState;
        if (state.status === 'new' || (status && state.status !== status)) continue;
        const key = record.id.slice(record.id.indexOf('/') + 1);
        instances.push({
          workflow: name,
          id: key,
          status: state.status,
          steps: stepsOf(state),
          startedAt: iso(state.startedAt),
          endedAt: iso(state.endedAt),
          ...(state.error ? { error: state.error.code } : {}),
        });
      }
      from = page.cursor;
    } while (from && instances.length < limit);
    if (instances.length >= limit) {
      cursor = from;
      break;
    }
  }
  const result = { instances, ...(cursor ? { cursor } : {}) };
  const only = names.length === 1 ? names[0] : undefined;
  ctx.print(result, (r) =>
    [
      r.instances.length === 0
        ? `no ${status ?? ''} instances of ${names.join(', ') || 'any workflow'}`.replace('  ', ' ')
        : table(r.instances, [
            'workflow',
            'id',
            'status',
            'steps',
            'startedAt',
            'endedAt',
            'error',
          ]),
      ...(r.cursor && only
        ? [
            `more: ${
              status
                ? ctx.followUp`workflows list ${only} --status ${status} --cursor ${r.cursor}`
                : ctx.followUp`workflows list ${only} --cursor ${r.cursor}`
            }`,
          ]
        : []),
    ].join('\n'),
  );
}

/** One journal entry as `show` prints it: no callback secrets. */
function step(entry: JournalEntry) {
  return {
    seq: entry.seq,
    kind: entry.kind,
    name: entry.name,
    state: entry.state,
    ...(entry.attempts === undefined ? {} : { attempts: entry.attempts }),
    at: iso(entry.at),
    ...(entry.endedAt === undefined ? {} : { endedAt: iso(entry.endedAt) }),
    ...(entry.until === undefined ? {} : { until: iso(entry.until) }),
    ...(entry.retryAt === undefined ? {} : { retryAt: iso(entry.retryAt) }),
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
    .map((l) => ({
      messageId: l.messageId,
      name: l.envelope.name,
      at: iso(l.at),
      error: `${innermost(l.error).code}: ${innermost(l.error).message}`,
    }));
  const parked = letters.filter((l) => l.parked !== undefined).length;
  const result = {
    workflow: name,
    ...summary(id, state),
    ...(state.status === 'paused' ? { nextReplayAt: await nextReplay(ctx, name, id) } : {}),
    ...(state.ending ? { ending: { status: state.ending.status, error: state.ending.error } } : {}),
    startedAt: iso(state.startedAt),
    endedAt: iso(state.endedAt),
    version: state.version ?? null,
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
        ['code version', r.version],
        ['started', r.startedAt],
        [
          r.endedAt === undefined ? 'running for' : 'took',
          took === undefined ? undefined : duration(took),
        ],
        ...(r.output === undefined ? [] : ([['output', r.output]] as const)),
        ...(r.error === undefined
          ? []
          : ([['error', `${r.error.code}: ${r.error.message}`]] as const)),
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
                  : `${r.nextReplayAt}, on its own (a deploy still rolling out may have paused it)`,
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
              result:
                'error' in s && s.error
                  ? `${s.error.code}: ${s.error.message}`
                  : 'value' in s
                    ? JSON.stringify(s.value).slice(0, 60)
                    : 'until' in s
                      ? `until ${s.until}`
                      : undefined,
            })),
            ['seq', 'kind', 'name', 'state', 'attempts', 'at', 'endedAt', 'result'],
          ),
    ].join('\n');
  });
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

/** The innermost error a dead letter keeps (what made it fail: its `details.cause` chain). */
function innermost(error: { code: string; message: string; details?: { cause?: unknown } }) {
  let current = error;
  for (let i = 0; i < 10; i++) {
    const cause = current.details?.cause as typeof error | undefined;
    if (typeof cause?.code !== 'string' || typeof cause.message !== 'string') break;
    current = cause;
  }
  return current;
}

const clip = (text: string) => (text.length <= 80 ? text : `${text.slice(0, 79)}…`);

/** Any JSON: the worker's own definition checks what the app's does not here. */
const anything = { safeParse: (data: unknown) => ({ success: true, data }) } as unknown as Schema;

/**
 * A client as trusted code for workflow `name`: on the app's definition with `--app` (so a
 * signal's payload is checked at the door), else on a stand-in of the same actor type.
 */
async function clientFor(
  ctx: OpsContext,
  name: string,
): Promise<{ client: Client; definition: AnyWorkflowDefinition }> {
  const { store, queue } = await ctx.target();
  let definition: AnyWorkflowDefinition | undefined;
  if (ctx.values.app) {
    const app = await ctx.app('checking the message');
    definition = app.workflows.find((w) => w.name === name);
    if (!definition) {
      throw new BatonError(
        ErrorCode.INVALID_ARGUMENT,
        `the app has no workflow ${name}; it has ${app.workflows.map((w) => w.name).join(', ') || 'none'}`,
      );
    }
  }
  definition ??= workflow({ name, input: anything, run: async () => undefined });
  const client = new Client({ actors: [definition.actor], store, queue }).asSystem();
  return { client, definition };
}

type Action = 'cancel' | 'terminate' | 'signal' | 'resume';

/**
 * Checks that instance `id` can take `action` now (refusing with what to do instead), then,
 * unless `--dry-run`, sends it and writes the audit line.
 */
async function act(
  ctx: OpsContext,
  action: Action,
  details: Record<string, unknown>,
  send: (client: Client, ref: Parameters<Client['cancel']>[0]) => Promise<{ messageId: string }>,
): Promise<void> {
  const name = workflowArg(ctx, 0);
  const id = ctx.arg(1, 'id');
  const state = await readInstance(ctx, name, id);
  if (FINAL.has(state.status)) {
    throw new BatonError(
      ErrorCode.INVALID_STATE,
      `${name}/${id} is ${state.status} already: a finished instance takes no ${action}`,
      { details: { workflow: name, id, status: state.status } },
    );
  }
  if (action === 'resume' && state.status !== 'paused') {
    throw new BatonError(
      ErrorCode.INVALID_STATE,
      `${name}/${id} is ${state.status}, not paused: only an instance whose code did not replay its history resumes`,
      { details: { workflow: name, id, status: state.status } },
    );
  }
  const what = `${action} ${name}/${id} (${state.status}, ${stepsOf(state)} steps)`;
  if (ctx.values['dry-run']) {
    ctx.print(
      { dryRun: true, action, workflow: name, id, status: state.status, ...details },
      () => `would ${what}`,
    );
    return;
  }
  if (action === 'cancel' || action === 'terminate') {
    await ctx.confirm(
      action === 'cancel'
        ? state.status === 'paused'
          ? `cancel ${name}/${id}? It is paused: its compensations run once its code replays (a recheck, or a resume after a deploy), then it ends cancelled; terminate ends it now without them`
          : `cancel ${name}/${id}? Its compensations run, then it ends cancelled`
        : `terminate ${name}/${id}? It ends at once, without compensations`,
    );
  }
  const { client, definition } = await clientFor(ctx, name);
  const { messageId } = await send(client, definition.ref(id));
  await ctx.audit(`workflows ${action}`, { workflow: name, id, ...details, messageId });
  ctx.print(
    { action, workflow: name, id, messageId, ...details },
    () =>
      `sent ${action} to ${name}/${id} (it was ${state.status})\nmessage id ${shellQuote(messageId)}\nfollow it: ${ctx.followUp`workflows show ${name} ${id}`}`,
  );
}

const sendOptions = (ctx: OpsContext) => (ctx.values.key ? { idempotencyKey: ctx.values.key } : {});

/** `baton workflows cancel <workflow> <id> [--reason r]`: compensations run, then it ends. */
export function workflowsCancel(ctx: OpsContext): Promise<void> {
  const reason = ctx.values.reason;
  return act(ctx, 'cancel', reason ? { reason } : {}, (client, ref) =>
    client.cancel(ref, { ...sendOptions(ctx), ...(reason ? { reason } : {}) }),
  );
}

/** `baton workflows terminate <workflow> <id> [--reason r]`: ends it without compensations. */
export function workflowsTerminate(ctx: OpsContext): Promise<void> {
  const reason = ctx.values.reason;
  return act(ctx, 'terminate', reason ? { reason } : {}, (client, ref) =>
    client.terminate(ref, { ...sendOptions(ctx), ...(reason ? { reason } : {}) }),
  );
}

/** `baton workflows signal <workflow> <id> <event> [json payload]`: the event its wait takes. */
export function workflowsSignal(ctx: OpsContext): Promise<void> {
  const event = ctx.arg(2, 'event');
  const [name, id] = [workflowArg(ctx, 0), ctx.arg(1, 'id')];
  const text = ctx.args[3];
  let payload: unknown;
  try {
    payload = text === undefined ? undefined : JSON.parse(text);
  } catch {
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      `the event's payload must be JSON, e.g. '{"tracking": "T-1"}', not ${text}`,
    );
  }
  if (!ctx.values.app) {
    ctx.note(
      `without --app, neither the event "${event}" nor its payload is checked before it is sent: one the workflow does not take is refused by its worker, retried, then kept as a dead letter of ${instanceId(name, id)} (${ctx.followUp`workflows show ${name} ${id}`} lists it); pass --app <entry> to check it first`,
    );
  }
  return act(ctx, 'signal', { event }, (client, ref) =>
    client.signal(ref, event, payload, sendOptions(ctx)),
  );
}

/** `baton workflows resume <workflow> <id>`: a paused instance replays with the code running now. */
export function workflowsResume(ctx: OpsContext): Promise<void> {
  return act(ctx, 'resume', {}, (client, ref) => client.resumeWorkflow(ref, sendOptions(ctx)));
}

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
