import type { DeadLetter, Timer } from '@baton/core/adapter';
import { cancelTimer, shellQuote } from '@baton/core/engine';
import { actorArg, noRecord } from './actors.ts';
import { clipped, duration, table } from './format.ts';
import type { OpsContext } from './OpsContext.ts';

/** `baton timers list <type/key>`: its pending timers and asks, soonest first. */
export async function timersList(ctx: OpsContext): Promise<void> {
  const id = actorArg(ctx, 0);
  const { store } = await ctx.target();
  const now = ctx.io.now();
  const timers = (await store.listTimers(id)).map((t) => ({
    id: t.id,
    kind: `${t.id.startsWith('ask:') ? 'ask timeout' : 'timer'}${t.deadLettered ? ' (fire held: dead-lettered, or parked at a paused actor)' : ''}`,
    name: t.name,
    due: new Date(t.at).toISOString(),
    in: t.at >= now ? duration(t.at - now) : `overdue ${duration(now - t.at)}`,
    payload: t.payload,
  }));
  ctx.print({ actor: id, timers }, (r) => {
    if (r.timers.length === 0) return `${id} has no pending timers`;
    // What each delivers: the start of its payload, the whole of it with --json.
    const payloads = r.timers.map((t) => JSON.stringify(t.payload) ?? '');
    const rows = r.timers.map((t, i) => ({ ...t, payload: clipped(payloads[i]!) }));
    const cut = rows.some((row, i) => row.payload !== payloads[i]);
    return (
      table(rows, ['id', 'kind', 'name', 'due', 'in', 'payload']) +
      (cut ? '\neach payload whole: --json' : '')
    );
  });
}

/** `baton timers cancel <type/key> <timer id> --yes`: the timer never fires. */
export async function timersCancel(ctx: OpsContext): Promise<void> {
  const id = actorArg(ctx, 0);
  const timerId = ctx.arg(1, 'timer id');
  const { store } = await ctx.target();
  // An actor with no record holds no timer: as likely a typo in its id as a timer gone.
  if (!(await store.readTimer(id, timerId)) && !(await store.load(id))) {
    throw noRecord(id, `no timer ${timerId}`, ctx.followUp);
  }
  await ctx.confirm(`cancel timer ${timerId} of ${id}? It never fires`);
  const by = await ctx.operator();
  // Read before the cancel, which removes it: a timer whose fire was kept as a letter names it.
  const timer = await store.readTimer(id, timerId);
  await cancelTimer(store, id, timerId, { by, followUp: ctx.followUp });
  await ctx.audit('timers cancel', { actor: id, timer: timerId });
  const kept = timer?.deadLettered ? await heldFireOf(ctx, id, timer) : undefined;
  const fire = kept && { messageId: kept.messageId, parked: kept.parked !== undefined };
  ctx.print({ actor: id, cancelled: timerId, ...(fire && { fire }) }, () => {
    const done = `timer ${timerId} of ${id} cancelled`;
    if (!kept) return done;
    if (kept.parked !== undefined) {
      return `${done}; its fire (message ${shellQuote(kept.messageId)}) is parked at paused ${id}: when ${id} is resumed, it is forgotten, and applies nothing`;
    }
    return `${done}; its fire was kept as a dead letter (message ${shellQuote(kept.messageId)}), which stays listed: a redrive of it applies nothing. Purge it: ${ctx.followUp`dead-letters purge ${id} ${kept.messageId}`}`;
  });
}

/**
 * The letter that holds `timer`'s fire, dead-lettered or parked at its paused actor (the timer
 * marked `deadLettered` names it by its id and scheduling); `undefined` if none is kept.
 */
async function heldFireOf(
  ctx: OpsContext,
  actorId: string,
  timer: Timer,
): Promise<DeadLetter | undefined> {
  const { store } = await ctx.target();
  const letters = await store.listDeadLetters(actorId);
  return letters.find(
    (l) => l.timer?.id === timer.id && l.timer.gen === timer.gen && l.applied === undefined,
  );
}
