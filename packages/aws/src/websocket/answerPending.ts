import { awaitsRedrive, type IdempotencyRecord } from '@baton/core/adapter';
import { answerOutcome, visibleFrame } from '@baton/server/session';
import { forEachAtMost } from '../internal/forEachAtMost.ts';
import type { Pusher } from './Pusher.ts';
import { fanOut, refreshInstance, updateFrame } from './refreshInstance.ts';
import type { PendingItem } from './registry/PendingRequests.ts';
import type { ReactiveContext } from './WebSocketOptions.ts';

/** Requests one outcome answers at once: each may re-run queries and push their results. */
const ANSWERS_AT_ONCE = 16;

/**
 * Answers the requests waiting for an ingress message's outcome (each taken from the registry
 * once, so two handlers never both answer): an `ask` gets `reply` or `error`; a `send` with
 * `visible: true` gets `error` if the actor rejected it, else — once every subscription of its
 * connection that reads the actor has been sent a result computed after the commit (re-run
 * here unless `fresh` lists the instance as re-run and pushed after it) — `visible`. A request made with the
 * same key for another message (its fingerprint differs) gets IDEMPOTENCY_KEY_REUSED instead:
 * the queue dropped its message as a duplicate, and the outcome is not its. An outcome that
 * waits for a redrive (`awaitsRedrive`: a plain send's under the key, kept as a dead letter that
 * a redrive applies without force) answers no one: the requests stay, for the outcome its
 * redrive or purge writes in its place, which the stream brings.
 *
 * @example
 * const change = decodeStreamRecord(record);
 * if (change?.kind === 'outcome') await answerPending(context, pusher, change.record);
 */
export async function answerPending(
  context: ReactiveContext,
  pusher: Pusher,
  record: IdempotencyRecord,
  fresh: ReadonlySet<string> = new Set(),
): Promise<void> {
  await answerEach(context, pusher, record, async ({ connectionId, requestId, actorId }) => {
    await showIn(context, pusher, connectionId, actorId, fresh);
    await pusher.send(connectionId, visibleFrame(requestId, record.key));
  });
}

/**
 * {@link answerPending} for an outcome a frame found recorded when its message was accepted (a
 * re-sent key: nothing new was committed). A visible send's connection is shown the write once,
 * then remembered as shown (`registry.shown`, written only once the pushes and `visible` went
 * out); re-sent again, it is answered `visible` at once. Else every re-sent frame would re-run
 * each instance of the connection that reads the actor and push it again: up to
 * `maxSubscriptions` runs and pushes a frame. `visible` still overtakes no push the connection
 * needs: it was sent a result computed after the commit for each such instance (a later push
 * only carries a newer one), and an instance it subscribed to since ran after the commit.
 *
 * @example
 * const outcome = await store.readIdempotency(messageId, sentAt);
 * if (outcome) await answerFound(context, pusher, outcome);
 */
export async function answerFound(
  context: ReactiveContext,
  pusher: Pusher,
  record: IdempotencyRecord,
): Promise<void> {
  const { shown } = context.registry;
  await answerEach(context, pusher, record, async ({ connectionId, requestId, actorId }) => {
    const visible = visibleFrame(requestId, record.key);
    // Shown already: what the connection holds shows the write, or something newer.
    if (await shown.has(connectionId, record.key)) {
      await pusher.send(connectionId, visible);
      return;
    }
    await showIn(context, pusher, connectionId, actorId, new Set());
    if (await pusher.send(connectionId, visible)) await shown.add(connectionId, record.key);
  });
}

/**
 * Takes the requests waiting for `record` and answers each, a few at once: `reply` or `error`
 * at once, `visible` through `answerVisible`.
 */
async function answerEach(
  context: ReactiveContext,
  pusher: Pusher,
  record: IdempotencyRecord,
  answerVisible: (pending: PendingItem) => Promise<void>,
): Promise<void> {
  if (awaitsRedrive(record)) return;
  const pending = await context.registry.pending.take(record.key);
  await forEachAtMost(pending, ANSWERS_AT_ONCE, async (request) => {
    const { connectionId, requestId, kind, actorId, name, fingerprint } = request;
    const answer = answerOutcome(record, { kind, requestId, to: actorId, name, fingerprint });
    if (answer === 'visible') await answerVisible(request);
    else await pusher.send(connectionId, answer);
  });
}

/**
 * Re-runs the connection's instances that read `actorId` and pushes what changed. An instance
 * another handler re-ran first is unchanged here, and that handler's push may still be on its
 * way: the connection is sent the instance's result itself (a repeat of a version it may hold,
 * which the client keeps as it is), so `visible` never overtakes it.
 */
async function showIn(
  context: ReactiveContext,
  pusher: Pusher,
  connectionId: string,
  actorId: string,
  fresh: ReadonlySet<string>,
): Promise<void> {
  const subscriptions = await context.registry.subscriptions.of(connectionId);
  const instances = new Set(subscriptions.map((s) => s.instanceId).filter((id) => !fresh.has(id)));
  await Promise.all(
    [...instances].map(async (instanceId) => {
      const instance = await context.registry.instances.get(instanceId);
      if (!instance || !(actorId in instance.deps)) return;
      const refreshed = await refreshInstance(context, instance);
      if (!refreshed) return;
      if (refreshed.changed) {
        await fanOut(context, pusher, refreshed);
        return;
      }
      const own = subscriptions.filter((s) => s.instanceId === instanceId);
      await Promise.all(
        own.map((s) => pusher.send(connectionId, updateFrame(s.subscriptionId, refreshed.update))),
      );
    }),
  );
}
