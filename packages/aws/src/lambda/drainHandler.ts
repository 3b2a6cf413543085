import { toBatonError } from '@baton/core';
import { createEngine, type EngineOptions, sweepOutbox } from '@baton/core/engine';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';

/**
 * The drainer Lambda, driven by an SQS queue of drain requests `{ "actorId": "type/key" }`:
 * drains each named actor's outbox into its targets' inboxes. Workers drain inline after each
 * commit; this handler serves fan-out, e.g. a sweeper that enqueues one request per actor so
 * that many outboxes drain in parallel. A request that fails comes back via `batchItemFailures`.
 *
 * @example
 * export const handler = drainHandler({ actors: [Account], store, queue });
 */
export function drainHandler(
  options: EngineOptions,
): (event: SQSEvent) => Promise<SQSBatchResponse> {
  const engine = createEngine(options);
  return async (event) => {
    const failures: SQSBatchResponse['batchItemFailures'] = [];
    for (const record of event.Records) {
      const actorId = readActorId(record.body);
      if (actorId === undefined) {
        engine.logger.error('a drain request is not {"actorId": "type/key"}: dropped', {
          body: record.body,
        });
        continue;
      }
      try {
        await sweepOutbox(engine.store, engine.queue, actorId);
      } catch (error) {
        engine.logger.warn('drain failed; the request comes back', {
          error: toBatonError(error).message,
        });
        failures.push({ itemIdentifier: record.messageId });
      }
    }
    return { batchItemFailures: failures };
  };
}

function readActorId(body: string): string | undefined {
  try {
    const { actorId } = JSON.parse(body) as { actorId?: unknown };
    return typeof actorId === 'string' ? actorId : undefined;
  } catch {
    return undefined;
  }
}
