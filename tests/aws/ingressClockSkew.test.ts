/**
 * I7 on DynamoDB Local when the doors' clocks differ: a keyed message two doors send, the one
 * whose clock runs ahead claiming the key and failing to enqueue, is applied once, however late
 * its retry comes: every copy carries the claim's `sentAt`. The embedded queue stands in for SQS
 * FIFO only to move its five-minute dedupe window with a virtual clock.
 */
import { randomUUID } from 'node:crypto';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { createAwsClients, createTable, DynamoStore } from '@baton/aws';
import { actor, silentLogger } from '@baton/core';
import type { Queue } from '@baton/core/adapter';
import { Client } from '@baton/core/client';
import { Worker } from '@baton/core/engine';
import { createEmbeddedBackend } from '@baton/embedded';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import * as z from 'zod';

const Account = actor({
  name: 'acc',
  state: z.object({ balance: z.number(), applied: z.number() }),
  initial: () => ({ balance: 0, applied: 0 }),
  handlers: {
    deposit: {
      public: true,
      payload: z.object({ amount: z.number(), note: z.string() }),
      handle: (ctx, { amount, note }) => {
        ctx.state.balance += amount;
        ctx.state.applied++;
        // A receipt over DynamoDB's 1 KB page: its outcome closes the page it is written to.
        return { balance: ctx.state.balance, receipt: note };
      },
    },
  },
});

const { dynamodb } = createAwsClients({
  dynamodbEndpoint: inject('dynamodbEndpoint'),
  sqsEndpoint: inject('sqsEndpoint'),
});
const tableName = `ingress-skew-${randomUUID().slice(0, 8)}`;
let now = 1_800_000_000_000;
const clock = { now: () => now };
/** Door X's clock: 30 s ahead of door Y's (the design allows an hour). */
const ahead = { now: () => now + 30_000 };
const store = new DynamoStore({ client: dynamodb, tableName, clock });

beforeAll(async () => {
  await createTable(dynamodb, tableName);
});
afterAll(async () => {
  await dynamodb.send(new DeleteTableCommand({ TableName: tableName }));
});

describe('a keyed message sent by doors whose clocks differ, on DynamoDB Local', () => {
  const payload = { amount: 5, note: 'r'.repeat(1100) };
  const key = { idempotencyKey: 'pay-1' };

  const stateOf = async (id: string) => (await store.load(id))?.state;

  it('applies it once when the door behind sends it after the other claimed its key, and the first door retries ten minutes on', async () => {
    const { queue } = createEmbeddedBackend({ clock });
    const worker = new Worker({ actors: [Account], store, queue, clock, logger: silentLogger });
    const run = async () => {
      for (let i = 0; i < 20; i++) if ((await worker.poll()) === 0) return;
    };
    const failing: Queue = {
      send: async () => Promise.reject(new Error('network')),
      receive: (options) => queue.receive(options),
      ack: (receipts) => queue.ack(receipts),
      release: (receipts, delayMs) => queue.release(receipts, delayMs),
    };
    // Door X as its enqueue fails, then as it works again; door Y, its clock behind.
    const x = new Client({ actors: [Account], store, queue: failing, clock: ahead });
    const xAgain = new Client({ actors: [Account], store, queue, clock: ahead });
    const y = new Client({ actors: [Account], store, queue, clock });
    const account = Account.ref(`a-${randomUUID().slice(0, 8)}`);
    await expect(x.send(account, 'deposit', payload, key)).rejects.toThrow('network');
    await y.send(account, 'deposit', payload, key);
    await run();
    expect(await stateOf(account.id)).toEqual({ balance: 5, applied: 1 });

    now += 10 * 60_000;
    await xAgain.send(account, 'deposit', payload, key);
    await run();
    expect(await stateOf(account.id)).toEqual({ balance: 5, applied: 1 });
  });
});
