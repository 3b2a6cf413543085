/**
 * `baton actors end-failing <type/key> <message id>`: the message failing at the head of an
 * actor's inbox is kept as a dead letter at its next delivery, its handler not run again, and
 * the actor goes on (see `endFailingMessage`).
 */
import { endFailingMessage, failingSummary } from '@baton/core/engine';
import { actorArg, noRecord } from './actors.ts';
import { isoTime } from './format.ts';
import { lostItsQuotes, quotesLost } from './messageIds.ts';
import type { OpsContext } from './OpsContext.ts';

export async function actorsEndFailing(ctx: OpsContext): Promise<void> {
  const id = actorArg(ctx, 0);
  const messageId = ctx.arg(1, 'message id');
  const { store } = await ctx.target();
  const record = await store.load(id);
  if (!record) throw noRecord(id, 'has no message failing', ctx.followUp);
  if (record.failing?.id !== messageId && lostItsQuotes(messageId)) {
    throw quotesLost(messageId, { actorId: id });
  }
  await ctx.confirm(
    `end message ${messageId} of ${id}? At its next delivery it is kept as a dead letter without running its handler, and ${id} goes on with the messages behind it`,
  );
  const by = await ctx.operator();
  const now = ctx.io.now();
  const failing = await endFailingMessage(store, id, messageId, {
    by,
    now,
    followUp: ctx.followUp,
  });
  const ended = failing.ended!;
  const result = {
    actor: id,
    messageId,
    attempts: failing.attempts,
    ended: { at: isoTime(ended.at), by: ended.by },
  };
  if (ended.by !== by || ended.at !== now) {
    ctx.print(
      { ...result, alreadyEnded: true },
      () =>
        `message ${messageId} of ${id} was ended already, at ${result.ended.at} by ${ended.by}: nothing changed`,
    );
    return;
  }
  await ctx.audit('actors end-failing', { actor: id, messageId });
  ctx.print(
    result,
    () =>
      `message ${messageId} of ${id} ended by ${by} (${failingSummary(failing)}). Its next delivery keeps it as a dead letter without running its handler, and ${id} goes on with the messages behind it. That delivery comes once the retry delay its last failure asked for is over (a RetryableError's retryAfterMs, at most 12 hours); then ${ctx.followUp`dead-letters show ${id} ${messageId}`} shows the letter, to redrive or purge`,
  );
}
