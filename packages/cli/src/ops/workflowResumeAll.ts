/**
 * `baton workflows resume <workflow> --all [--dry-run] [--limit n]`: every paused instance of a
 * workflow replays on the code running now. After a deploy that fixes what paused many of them
 * (a change their histories do not replay, a bug their runs threw on), once their own rechecks
 * are spent, one command sends each its resume, as `workflows resume` does one.
 */
import { listActors } from '@baton/aws';
import { BatonError, ErrorCode, type WorkflowState } from '@baton/core';
import { storedInstanceRef } from '@baton/core/engine';
import { limitOption } from './format.ts';
import type { OpsContext } from './OpsContext.ts';
import { eachInTurn } from './partway.ts';
import { clientFor } from './workflowClient.ts';
import { workflowArg } from './workflowInstance.ts';

/** The most paused instances one command resumes unless `--limit` says otherwise. */
const RESUME_LIMIT = 1_000;

export async function workflowsResumeAll(ctx: OpsContext): Promise<void> {
  const name = workflowArg(ctx, 0);
  const id = ctx.args[1];
  if (id !== undefined) {
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      `--all resumes every paused instance of ${name}: give no id, or leave out --all to resume ${ctx.followUp`workflows resume ${name} ${id}`} alone`,
    );
  }
  if (ctx.values.key !== undefined) {
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      '--key names one message, and --all sends one to each paused instance: leave out --key (a resume sent twice replays once)',
    );
  }
  const limit = limitOption(ctx.values.limit, RESUME_LIMIT);
  const { paused, more } = await pausedInstances(ctx, name, limit);
  const listed = paused.join(', ');
  const over = more
    ? `\nmore may be paused past the first ${limit} found: run it again once these replay (--limit sets how many)`
    : '';
  if (ctx.values['dry-run']) {
    ctx.print({ dryRun: true, workflow: name, resume: paused, ...(more && { more }) }, () =>
      paused.length === 0
        ? `no instance of ${name} is paused: nothing to resume`
        : `would resume ${paused.length} paused instance(s) of ${name}: ${listed}${over}`,
    );
    return;
  }
  const sent: { id: string; messageId: string }[] = [];
  try {
    const resume = async (key: string) => {
      // Each instance's own client: its inbox may be another than the others'.
      const { client, definition } = await clientFor(ctx, name, key);
      const { messageId } = await client.resumeWorkflow(storedInstanceRef(definition, key));
      const one = { id: key, messageId };
      sent.push(one);
      return one;
    };
    await eachInTurn(paused, resume, {
      did: 'sent resume to',
      items: `paused instances of ${name}`,
      name: (key) => key,
      json: (key) => ({ id: key }),
      again: 'Once that is fixed, run it again: an instance resumed twice replays once',
    });
  } finally {
    // Those sent before a failure too.
    if (sent.length > 0) {
      await ctx.audit('workflows resume', { workflow: name, all: true, resumed: sent });
    }
  }
  const follow = ctx.followUp`workflows list ${name} --status paused`;
  ctx.print({ workflow: name, resumed: sent, ...(more && { more }) }, () =>
    sent.length === 0
      ? `no instance of ${name} is paused: nothing to resume`
      : `sent resume to ${sent.length} paused instance(s) of ${name}: ${listed}\nfollow them: each replays its history in its next turn, and pauses again if the code running still cannot replay it: ${follow} lists those${over}`,
  );
}

/** The ids of `name`'s paused instances, `limit` at most (one scan of its instances). */
async function pausedInstances(
  ctx: OpsContext,
  name: string,
  limit: number,
): Promise<{ paused: string[]; more: boolean }> {
  const { dynamodb, names } = await ctx.target();
  const paused: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await listActors(dynamodb, names.table, `wf-${name}`, {
      limit: 100,
      ...(cursor && { cursor }),
    });
    for (const record of page.records) {
      if ((record.state as WorkflowState).status !== 'paused') continue;
      if (paused.length === limit) return { paused, more: true };
      paused.push(record.id.slice(record.id.indexOf('/') + 1));
    }
    cursor = page.cursor;
  } while (cursor);
  return { paused, more: false };
}
