/**
 * `baton workflows cancel | terminate | signal | resume`: the actions an operator sends an
 * instance, as trusted code, through a client of the workflow's actor. Each checks that the
 * instance can take it now, asks before it cancels or terminates, and writes the audit line.
 */
import { BatonError, ErrorCode, type WorkflowState } from '@baton/core';
import type { Client } from '@baton/core/client';
import { storedInstanceRef } from '@baton/core/engine';
import { closestWord } from '../unknownCommand.ts';
import type { OpsContext } from './OpsContext.ts';
import { shellQuote } from './target.ts';
import { clientFor } from './workflowClient.ts';
import { instanceId, readInstance, stepsOf, workflowArg } from './workflowInstance.ts';
import { workflowsResumeAll } from './workflowResumeAll.ts';

/** The statuses of a finished instance, which takes no action. */
const FINAL: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled', 'terminated']);

type Action = 'cancel' | 'terminate' | 'signal' | 'resume';

/** What an action reads of the instance's state, besides whether it can take the action. */
interface StateChecks {
  /**
   * Once the instance can take the action, before it is sent (a dry run too): refuses what its
   * state says must not be sent, by throwing.
   */
  readonly before?: (state: WorkflowState) => void;
  /**
   * Notes on what the instance's state says of the command, once the door took it (or on a dry
   * run): a command it refuses gets its refusal alone.
   */
  readonly notes?: (state: WorkflowState) => void;
}

/**
 * Checks that instance `id` can take `action` now (refusing with what to do instead), then,
 * unless `--dry-run`, sends it and writes the audit line.
 */
async function act(
  ctx: OpsContext,
  action: Action,
  details: Record<string, unknown>,
  send: (client: Client, ref: Parameters<Client['cancel']>[0]) => Promise<{ messageId: string }>,
  { before, notes }: StateChecks = {},
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
      `${name}/${id} is ${state.status}, not paused: only a paused instance resumes, one that paused because its code did not replay its history (a deploy's) or because its run threw an unexpected error. ${ctx.followUp`workflows show ${name} ${id}`} shows its status and steps`,
      { details: { workflow: name, id, status: state.status } },
    );
  }
  before?.(state);
  const what = `${action} ${name}/${id} (${state.status}, ${stepsOf(state)} steps)`;
  if (ctx.values['dry-run']) {
    notes?.(state);
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
  const { client, definition } = await clientFor(ctx, name, id);
  const { messageId } = await send(client, storedInstanceRef(definition, id));
  notes?.(state);
  await ctx.audit(`workflows ${action}`, { workflow: name, id, ...details, messageId });
  const show = ctx.followUp`workflows show ${name} ${id}`;
  // A resume is no fix: it replays on the code running now, which may still not replay it.
  const follow =
    action === 'resume'
      ? `it replays its history in its next turn, and pauses again if the code running still cannot replay it: ${show} says which`
      : show;
  ctx.print(
    { action, workflow: name, id, messageId, ...details },
    () =>
      `sent ${action} to ${name}/${id} (it was ${state.status})\nmessage id ${shellQuote(messageId)}\nfollow it: ${follow}`,
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

/**
 * `baton workflows signal <workflow> <id> <event> [json payload] [--app <entry>] [--force]`: the
 * event its wait takes.
 */
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
  return act(
    ctx,
    'signal',
    { event },
    (client, ref) => client.signal(ref, event, payload, sendOptions(ctx)),
    {
      before: (state) => {
        refuseUnwaitedEvent(ctx, name, id, event, state);
        if (!ctx.values.app) {
          ctx.note(
            `without --app, neither the event "${event}" nor its payload is checked before it is sent: a workflow that declares its events refuses one it does not take at its worker (retried, then kept as a dead letter of ${instanceId(name, id)}: ${ctx.followUp`workflows show ${name} ${id}`} lists it), and one that declares none holds any event until a wait for it comes; pass --app <entry> to check it first`,
          );
        }
      },
      notes: (state) => {
        // An event may come before its wait: said, not refused, once its name was checked (or
        // sent with --force). A misspelt name that the workflow takes waits for good.
        const waits = openWaits(state);
        if (waits.includes(event)) return;
        const open = waits.length > 0 ? `its open waits: ${waits.join(', ')}` : 'no wait is open';
        // Without --app, the door checked nothing: a workflow that declares its events refuses
        // one it does not take at its worker (said before the send).
        const held = ctx.values.app ? 'it is held' : 'if the workflow takes it, it is held';
        ctx.note(
          `${name}/${id} is not waiting for "${event}" now (${open}): ${held} until a wait for it comes, so check its name`,
        );
      },
    },
  );
}

/**
 * Refuses, without `--app` or `--force`, an event the instance's open waits do not name: unable
 * to check the name, the CLI would send a typo that its worker does not know, which blocks the
 * instance's inbox (it is retried for minutes, then dead-lettered) and the signal sent after it
 * to fix it. With no wait open, nothing tells a typo from an early event: it is sent, noted.
 */
function refuseUnwaitedEvent(
  ctx: OpsContext,
  name: string,
  id: string,
  event: string,
  state: WorkflowState,
): void {
  const waits = openWaits(state);
  if (ctx.values.app || ctx.values.force || waits.length === 0 || waits.includes(event)) return;
  const near = closestWord(event, waits);
  const text = ctx.args[3];
  const meant =
    near === undefined
      ? ''
      : ` Did you mean ${
          text === undefined
            ? ctx.followUp`workflows signal ${name} ${id} ${near}`
            : ctx.followUp`workflows signal ${name} ${id} ${near} ${text}`
        }?`;
  throw new BatonError(
    ErrorCode.INVALID_ARGUMENT,
    `${name}/${id} waits for ${waits.map((w) => `"${w}"`).join(', ')}, not "${event}", and without --app the CLI cannot check the name: an event its code does not know waits at the head of ${instanceId(name, id)}'s inbox for minutes (retried, then kept as a dead letter), holding every message sent after it, a corrected signal too. Nothing was sent.${meant} Pass --app <entry> to check the name and payload, or --force to send it as it is (an event may be sent before the run waits for it)`,
    { details: { workflow: name, id, event, openWaits: waits } },
  );
}

/** The events an instance's run waits for now: its pending waits, by name. */
function openWaits(state: WorkflowState): string[] {
  const entries = [...(state.pinned ?? []), ...state.journal];
  return entries.filter((e) => e.kind === 'event' && e.state === 'pending').map((e) => e.name);
}

/**
 * `baton workflows resume <workflow> <id>`: a paused instance replays with the code running now;
 * with `--all` instead of an id, every paused instance of the workflow (`workflowsResumeAll`).
 */
export function workflowsResume(ctx: OpsContext): Promise<void> {
  if (ctx.values.all) return workflowsResumeAll(ctx);
  if (ctx.values.limit !== undefined) {
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      '--limit counts the instances --all resumes: pass --all instead of an id, or leave out --limit',
    );
  }
  return act(ctx, 'resume', {}, (client, ref) => client.resumeWorkflow(ref, sendOptions(ctx)));
}
