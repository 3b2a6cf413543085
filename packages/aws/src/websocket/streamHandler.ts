import { toBatonError } from '@baton/core';
import type { IdempotencyRecord } from '@baton/core/adapter';
import { movedPast, positionOf, type ReadPosition, withNewest } from '@baton/server/evaluation';
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { decodeStreamRecord, type StreamRecordLike } from '../streams/decodeStreamRecord.ts';
import { answerPending } from './answerPending.ts';
import { Pusher } from './Pusher.ts';
import { PUSHES_THROTTLED_LOG } from './PushQueue.ts';
import { fanOut, refreshInstance } from './refreshInstance.ts';
import {
  type ReactiveContext,
  type ReactiveOptions,
  resolveReactiveOptions,
} from './WebSocketOptions.ts';

/**
 * The Lambda on the store table's DynamoDB stream: the reactive side of the WebSocket API.
 * Per batch it gathers the newest `ver` of every changed actor (per life: a new life after
 * `ctx.halt()` counts from 1 again), finds the instances that read an older one or another
 * life (`D#<actor id>` items), re-runs each dirty instance once, and pushes a changed
 * result (a new version) to all its subscribers. Then it answers requests waiting for the
 * batch's outcomes: `reply`/`error` for an `ask`, `visible` for a `send` once the connection's
 * subscriptions show the commit. A failing push never fails the batch; a registry or store
 * outage does (`batchItemFailures` from the batch's first record), and the batch is retried.
 * Enable `ReportBatchItemFailures` on the event source mapping.
 *
 * @example
 * export const handler = streamHandler({
 *   actors: [Account],
 *   queries: [balance],
 *   store,
 *   dynamodb,
 *   connectionsTable: process.env.CONNECTIONS_TABLE!,
 *   endpoint: process.env.WEBSOCKET_ENDPOINT, // optional: else each connection's own
 * });
 */
export function streamHandler(
  options: ReactiveOptions,
): (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse> {
  const context = resolveReactiveOptions(options);
  return async (event) => {
    const records = event.Records ?? [];
    try {
      await processBatch(context, records);
      return { batchItemFailures: [] };
    } catch (error) {
      context.logger.warn('stream batch failed; it will be retried', {
        error: toBatonError(error).message,
      });
      const first = records[0]?.dynamodb?.SequenceNumber;
      return { batchItemFailures: first ? [{ itemIdentifier: first }] : [] };
    }
  };
}

async function processBatch(
  context: ReactiveContext,
  records: readonly StreamRecordLike[],
): Promise<void> {
  /** Actor id → the commits of the batch: the newest of each life. */
  const changed = new Map<string, ReadPosition[]>();
  const outcomes: IdempotencyRecord[] = [];
  for (const record of records) {
    const change = decodeStreamRecord(record);
    if (change?.kind === 'record') {
      const { id } = change.record;
      changed.set(id, withNewest(changed.get(id) ?? [], positionOf(change.record)));
    } else if (change?.kind === 'outcome') {
      outcomes.push(change.record);
    } else if (change?.kind === 'outcomes') {
      outcomes.push(...change.records);
    }
  }
  const pusher = new Pusher(context.pushes);
  try {
    await pushChanges(context, pusher, changed, outcomes);
  } finally {
    // What the account's API Gateway limit held back, for the construct's metric and alarm.
    if (pusher.throttledCalls > 0) {
      context.logger.warn(PUSHES_THROTTLED_LOG, { throttled: pusher.throttledCalls });
    }
  }
}

/** Re-runs the instances that read a changed actor, pushes them, answers pending requests. */
async function pushChanges(
  context: ReactiveContext,
  pusher: Pusher,
  changed: ReadonlyMap<string, ReadPosition[]>,
  outcomes: readonly IdempotencyRecord[],
): Promise<void> {
  // Instance id → the changed actors it depends on.
  const dirty = new Map<string, string[]>();
  await Promise.all(
    [...changed.keys()].map(async (actorId) => {
      for (const instanceId of await context.registry.instances.dependents(actorId)) {
        dirty.set(instanceId, [...(dirty.get(instanceId) ?? []), actorId]);
      }
    }),
  );
  const fresh = new Set<string>();
  await Promise.all(
    [...dirty].map(async ([instanceId, actorIds]) => {
      const instance = await context.registry.instances.get(instanceId);
      if (!instance) {
        // Left behind by a crash: the instance is gone.
        await Promise.all(
          actorIds.map((a) => context.registry.instances.removeDependency(a, instanceId)),
        );
        return;
      }
      const stale = actorIds.some((a) =>
        changed.get(a)!.some((at) => movedPast(at, instance.deps[a] ?? { ver: -1 })),
      );
      if (!stale) return;
      const refreshed = await refreshInstance(context, instance);
      // Fresh only once pushed: unchanged, another handler's push may still be on its way.
      if (refreshed?.changed) {
        await fanOut(context, pusher, refreshed);
        fresh.add(instanceId);
      }
    }),
  );
  await Promise.all(outcomes.map((outcome) => answerPending(context, pusher, outcome, fresh)));
}
