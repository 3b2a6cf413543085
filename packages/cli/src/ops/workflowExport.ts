import { readPagedEntries } from '@baton/core/engine';
import type { OpsContext } from './OpsContext.ts';
import { instanceId, readInstance, workflowArg } from './workflowInstance.ts';

/**
 * `baton workflows export <workflow> <id>`: the instance's whole history as JSON, for an app's CI
 * to replay with the next release's code before it is deployed: its record's state and the
 * entries moved out of it into pages (`replayWorkflow(W, state, { paged })`). JSON either way.
 */
export async function workflowsExport(ctx: OpsContext): Promise<void> {
  const name = workflowArg(ctx, 0);
  const id = ctx.arg(1, 'id');
  const state = await readInstance(ctx, name, id);
  const { store } = await ctx.target();
  const paged = await readPagedEntries(store, instanceId(name, id), state);
  ctx.print({ workflow: name, id, state, paged }, (history) => JSON.stringify(history, null, 2));
}
