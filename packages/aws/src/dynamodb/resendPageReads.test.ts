/**
 * A measurement, not a guarantee: what one keyed re-send costs on DynamoDB when its key's claim
 * is old and its actor busy. `Client.send` of a key already claimed reads the message's outcome
 * from the claim's `sentAt` (to answer a retry without enqueuing it again), and that read has no
 * page bound: it goes back from the actor's newest outcome page to the page of the first send.
 * The outcome route bounds its read (`OUTCOME_READ_MAX_PAGES`); the re-send does not. Bounding it
 * without failing a legitimate retry needs pages that tell where a message's outcome may lie
 * (the package README says so where it describes the HTTP ingress); until then this test pins today's count, so that a
 * change to it is seen.
 */
import { randomUUID } from 'node:crypto';
import { DeleteTableCommand, type QueryCommandOutput } from '@aws-sdk/client-dynamodb';
import { actor, isBatonError } from '@baton/core';
import type { PagedOutcome, Queue } from '@baton/core/adapter';
import { Client, OUTCOME_READ_MAX_PAGES } from '@baton/core/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import * as z from 'zod';
import { createAwsClients } from '../createAwsClients.ts';
import { createTable } from './createTable.ts';
import { DynamoStore } from './DynamoStore.ts';

const Counter = actor({
  name: 'counter',
  state: z.object({ n: z.number() }),
  initial: () => ({ n: 0 }),
  handlers: {
    add: {
      public: true,
      payload: z.object({ by: z.number() }),
      handle: (ctx, { by }) => {
        ctx.state.n += by;
      },
    },
  },
});

const { dynamodb } = createAwsClients({ dynamodbEndpoint: inject('dynamodbEndpoint') });
const tableName = `baton-resend-${randomUUID().slice(0, 8)}`;
const DAY = 24 * 60 * 60 * 1000;
const T0 = 1_800_000_000_000;
let now = T0;
const store = new DynamoStore({ client: dynamodb, tableName, clock: { now: () => now } });

/** Outcome page items the store's Queries return (each a page read, of up to 400 KB). */
let pageReads = 0;
dynamodb.middlewareStack.add(
  (next, context) => async (args) => {
    const result = await next(args);
    if (context.commandName === 'QueryCommand') {
      const { Items = [] } = result.output as QueryCommandOutput;
      pageReads += Items.filter((item) => item.sk?.S?.startsWith('P#')).length;
    }
    return result;
  },
  { step: 'initialize', name: 'pageReads' },
);

const sent: string[] = [];
const queue = {
  send: async (messages: readonly { body: string }[]) => {
    sent.push(...messages.map(({ body }) => body));
  },
} as unknown as Queue;

beforeAll(() => createTable(dynamodb, tableName));
afterAll(() => dynamodb.send(new DeleteTableCommand({ TableName: tableName })));

/** `count` pages of the actor's outcomes, as its turns write them, after the page of `first`. */
async function busyActor(actorId: string, first: PagedOutcome, count: number): Promise<void> {
  for (let page = 0; page < count; page++) {
    const sentAt = T0 + page;
    const records: PagedOutcome[] =
      page === 0
        ? [first]
        : [
            {
              ...first,
              key: `${actorId}:other-${page}`,
              sentAt,
              outcome: { ok: true, value: null },
            },
          ];
    await store.commit({
      expectedVer: page,
      record: {
        ...{ id: actorId, ver: page + 1, life: 'L', state: { n: page + 1 } },
        ...{ inboxOffset: String(page + 1), marks: {}, sentSeq: 0 },
      },
      outbox: [],
      idempotency: [],
      outcomes: { page, sentAt, records, begins: true },
    });
  }
}

describe('a keyed re-send on a busy actor (DynamoDB)', () => {
  it('reads every outcome page written since its claim, with no page bound: 100 pages for one request, where an outcome read stops past 64', async () => {
    const client = new Client({ actors: [Counter], store, queue, clock: { now: () => now } });
    const to = Counter.ref(`c-${randomUUID().slice(0, 8)}`);
    const pages = 100;

    // A stranger sends once with a key; the actor processes it, then 99 pages of others' messages.
    const first = await client.send(to, 'add', { by: 1 }, { idempotencyKey: 'k' });
    expect(first.sentAt).toBe(T0);
    const outcome: PagedOutcome = {
      key: first.messageId,
      actorId: to.id,
      outcome: { ok: true, value: null },
      expiresAt: T0 + 14 * DAY,
      sentAt: T0,
    };
    await busyActor(to.id, outcome, pages);

    // Days later, the same send again: answered from the outcome, not enqueued again…
    now = T0 + 3 * DAY;
    sent.length = 0;
    pageReads = 0;
    const again = await client.send(to, 'add', { by: 1 }, { idempotencyKey: 'k' });
    expect(again).toEqual(first);
    expect(sent).toEqual([]);
    // …at the cost of a read of every page since the first send: one request, 100 pages.
    expect(pageReads).toBe(pages);

    // Each re-send costs it again: nothing is remembered.
    pageReads = 0;
    for (let i = 0; i < 3; i++) await client.send(to, 'add', { by: 1 }, { idempotencyKey: 'k' });
    expect(pageReads).toBe(3 * pages);

    // The outcome read of the same message is bounded: it stops one page past its bound.
    pageReads = 0;
    const read = await client.outcome(first.messageId, { sentAt: first.sentAt }).catch((e) => e);
    expect(isBatonError(read) && read.code).toBe('LIMIT_EXCEEDED');
    expect(pageReads).toBe(OUTCOME_READ_MAX_PAGES + 1);
  });
});
