/**
 * The worker Lambda releases a failed record for at most what SQS's 12 hours from the receive
 * leave: SQS refuses a longer release, and the record would come back after the queue's
 * visibility timeout instead. On the embedded queue, which refuses such a release as SQS does.
 */
import { workerHandler } from '@baton/aws/lambda';
import { actor, RetryableError, silentLogger } from '@baton/core';
import { Client } from '@baton/core/client';
import { createEmbeddedBackend } from '@baton/embedded';
import { VirtualClock } from '@baton/testing';
import type { SQSEvent } from 'aws-lambda';
import { expect, it } from 'vitest';
import * as z from 'zod';

const HOUR = 60 * 60 * 1000;
const clock = new VirtualClock();

const Shop = actor({
  name: 'shop',
  state: z.object({}),
  initial: () => ({}),
  handlers: {
    open: {
      payload: z.object({}),
      handle: () => {
        clock.advance(10 * 60_000); // a slow turn
        throw new RetryableError('closed until tomorrow', { retryAfterMs: 13 * HOUR });
      },
    },
  },
});

it("releases a retry asked for past SQS's 12 hours for what the receive left of them", async () => {
  const { store, queue } = createEmbeddedBackend({ clock });
  await new Client({ actors: [Shop], store, queue, clock })
    .asSystem()
    .send(Shop.ref('s'), 'open', {});
  const [m] = await queue.receive({ max: 1, visibilityTimeoutMs: 30_000 });
  const handler = workerHandler({ actors: [Shop], store, queue, clock, logger: silentLogger });
  const record = {
    messageId: 'record-1',
    receiptHandle: m!.receipt,
    body: m!.body,
    attributes: {
      ApproximateReceiveCount: '1',
      SequenceNumber: String(BigInt(m!.seq) - 1n),
      MessageGroupId: m!.group,
      MessageDeduplicationId: m!.dedupeId,
    },
  };
  const answer = await handler({ Records: [record] } as unknown as SQSEvent);
  expect(answer).toEqual({ batchItemFailures: [{ itemIdentifier: 'record-1' }] });
  expect(queue.nextVisibleAt()).toBe(clock.now() + 12 * HOUR - 10 * 60_000 - 60_000);
});
