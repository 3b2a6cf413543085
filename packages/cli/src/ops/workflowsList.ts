/**
 * `baton workflows list`: a deployed app's workflow instances, by status, a page at a time;
 * without a workflow's name, every workflow of `--app`.
 */
import { listActors } from '@baton/aws';
import { BatonError, ErrorCode, type WorkflowState, type WorkflowStatus } from '@baton/core';
import { closestWord } from '../unknownCommand.ts';
import { isoTime, limitOption, table } from './format.ts';
import type { OpsContext } from './OpsContext.ts';
import { stepsOf, workflowArg } from './workflowInstance.ts';

const STATUSES: readonly WorkflowStatus[] = [
  'running',
  'waiting',
  'paused',
  'completed',
  'failed',
  'cancelled',
  'terminated',
];

const iso = (ms: number | undefined) => (ms === undefined ? undefined : isoTime(ms));

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
  // A name --app does not define: as likely a typo, refused with the nearest.
  if (ctx.args.length > 0 && ctx.values.app) {
    const known = (await ctx.app('checking the workflow')).workflows.map((w) => w.name);
    const [name = ''] = names;
    if (!known.includes(name)) {
      const near = closestWord(name, known);
      throw new BatonError(
        ErrorCode.INVALID_ARGUMENT,
        `the app defines no workflow "${name}" (it has ${known.join(', ') || 'none'}).${near === undefined ? '' : ` Did you mean ${ctx.followUp`workflows list ${near}`}?`}`,
        { details: { workflow: name, knownWorkflows: known } },
      );
    }
  }
  if (names.length > 1 && ctx.values.cursor) {
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      `--cursor pages one workflow: pass its name, ${ctx.followUp`workflows list <workflow> --cursor …`}`,
    );
  }
  const { dynamodb, names: target } = await ctx.target();
  const instances: Record<string, unknown>[] = [];
  // Where the listing stopped once `limit` matched: that workflow's next page, if any, and the
  // workflows after it, not looked at.
  let stopped: { workflow: string; cursor?: string; unlisted: string[] } | undefined;
  for (const [at, name] of names.entries()) {
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
          ...errorColumn(state),
        });
      }
      from = page.cursor;
    } while (from && instances.length < limit);
    const unlisted = names.slice(at + 1);
    if (instances.length >= limit && (from || unlisted.length > 0)) {
      stopped = { workflow: name, ...(from ? { cursor: from } : {}), unlisted };
      break;
    }
  }
  // `workflows list <name>` as this listing asked (its status and limit), from `cursor`.
  const again = (name: string, cursor?: string) => {
    const [f, n] = [ctx.followUp, String(limit)];
    if (status && cursor)
      return f`workflows list ${name} --status ${status} --limit ${n} --cursor ${cursor}`;
    if (status) return f`workflows list ${name} --status ${status} --limit ${n}`;
    if (cursor) return f`workflows list ${name} --limit ${n} --cursor ${cursor}`;
    return f`workflows list ${name} --limit ${n}`;
  };
  const result = {
    instances,
    // The next page of the workflow the listing stopped in (`cursorOf`), and those after it.
    ...(stopped?.cursor ? { cursor: stopped.cursor, cursorOf: stopped.workflow } : {}),
    ...(stopped && stopped.unlisted.length > 0 ? { unlisted: stopped.unlisted } : {}),
  };
  ctx.print(result, (r) =>
    [
      r.instances.length === 0
        ? `no ${status ?? ''} instances of ${names.join(', ') || 'any workflow'}${ctx.values.app ? '' : " (--app <entry> checks the name against the app's workflows)"}`.replace(
            '  ',
            ' ',
          )
        : table(r.instances, [
            'workflow',
            'id',
            'status',
            'steps',
            'startedAt',
            'endedAt',
            'error',
          ]),
      ...(stopped?.cursor ? [`more: ${again(stopped.workflow, stopped.cursor)}`] : []),
      ...(stopped && stopped.unlisted.length > 0
        ? [
            `not looked at, past --limit ${limit}: ${stopped.unlisted.join(', ')} — ${again(stopped.unlisted[0]!)}${stopped.unlisted.length > 1 ? ', and likewise for the others' : ''}`,
          ]
        : []),
    ].join('\n'),
  );
}

/**
 * The error `workflows list` shows of an instance: the one that ended it, or the one that paused
 * it, with why (`RETRYABLE (RUN_THREW)`: its run threw; `NON_DETERMINISTIC`: its history does
 * not replay), so that a paused list tells the two apart.
 */
function errorColumn(state: WorkflowState): { error?: string } {
  if (state.error) return { error: state.error.code };
  const paused = state.paused?.error;
  if (!paused) return {};
  const reason = paused.details?.reason;
  return { error: typeof reason === 'string' ? `${paused.code} (${reason})` : paused.code };
}
