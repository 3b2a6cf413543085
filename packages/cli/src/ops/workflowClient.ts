/** The client the workflow commands send through, as trusted code. */
import {
  type AnyWorkflowDefinition,
  BatonError,
  ErrorCode,
  type Schema,
  workflow,
} from '@baton/core';
import { Client } from '@baton/core/client';
import type { OpsContext } from './OpsContext.ts';
import { instanceId } from './workflowInstance.ts';

/** Any JSON: the worker's own definition checks what the app's does not here. */
const anything = { safeParse: (data: unknown) => ({ success: true, data }) } as unknown as Schema;

/**
 * A client as trusted code for workflow `name`: on the app's definition with `--app` (so a
 * signal's payload is checked at the door), else on a stand-in of the same actor type.
 */
export async function clientFor(
  ctx: OpsContext,
  name: string,
  id: string,
): Promise<{ client: Client; definition: AnyWorkflowDefinition }> {
  const { store } = await ctx.target();
  const queue = await ctx.inboxOf(instanceId(name, id));
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
