/**
 * `baton actors end-failing <type/key> <message id>`: the message failing at the head of an
 * actor's inbox is kept as a dead letter at its next delivery, its handler not run again, and
 * the actor goes on (see `endFailingMessage`). The end is marked in the actor's record now, and
 * recorded beside the letter to come (letterTrails.ts), which `dead-letters list` and `show`
 * and `outcome` then say was ended by an operator, by whom and when.
 */
import { endFailingMessage, failingSummary } from '@baton/core/engine';
import { actorArg, noRecord } from './actors.ts';
import { isoTime } from './format.ts';
import { recordEnd, writerOf } from './letterTrails.ts';
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
  // The end an earlier run made too: its letter says so even if that run could not record it.
  await recordEnd(await writerOf(ctx), id, messageId, ended);
  const result = {
    actor: id,
    messageId,
    attempts: failing.attempts,
    ended: { at: isoTime(ended.at), by: ended.by },
    // Not now: the end is made at the message's next delivery, which keeps it as a dead letter.
    takesEffect: 'nextDelivery',
  };
  /** When and how the end takes effect, and where to look then. */
  const when = `It is not a dead letter yet, and takes effect at its next delivery, not now: SQS hides the message until the retry delay its last failure asked for is over (a few seconds to a minute for most failures; a RetryableError's retryAfterMs, at most 12 hours), then the worker keeps it as a dead letter without running its handler, and ${id} goes on with the messages behind it. Until then ${ctx.followUp`actors get ${id}`} shows it failing, marked ended; then ${ctx.followUp`dead-letters show ${id} ${messageId}`} shows the letter, ended by ${ended.by} at ${result.ended.at}, to redrive or purge`;
  if (ended.by !== by || ended.at !== now) {
    ctx.print(
      { ...result, alreadyEnded: true },
      () =>
        `message ${messageId} of ${id} was ended already, at ${result.ended.at} by ${ended.by}: nothing changed. ${when}`,
    );
    return;
  }
  await ctx.audit('actors end-failing', { actor: id, messageId });
  ctx.print(
    result,
    () => `message ${messageId} of ${id} ended by ${by} (${failingSummary(failing)}). ${when}`,
  );
}
