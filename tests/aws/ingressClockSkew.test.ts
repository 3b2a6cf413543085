/**
 * I7 on DynamoDB Local when the doors' clocks differ: a keyed message two doors send, the one
 * whose clock runs ahead claiming the key and failing to enqueue, is applied once, however late
 * its retry comes. Every copy carries the claim's `sentAt`, and a door's read of the outcome goes
 * back a clocks' margin before it, so it finds too the outcome of a copy that an earlier Baton
 * stamped with the other door's earlier time. The embedded queue stands in for SQS FIFO only to
 * move its five-minute dedupe window with a virtual clock.
 */
import { randomUUID } from 'node:crypto';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { createAwsClients, createTable, DynamoStore } from '@baton/aws';
import { actor, silentLogger } from '@baton/core';
import { decodeEnvelope, encodeEnvelope, type Queue, type QueueMessage } from '@baton/core/adapter';
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

  function doors() {
    const { queue } = createEmbeddedBackend({ clock });
    const worker = new Worker({ actors: [Account], store, queue, clock, logger: silentLogger });
    /** What door X tried to enqueue. */
    const lost: QueueMessage[] = [];
    const failing: Queue = {
      send: async (messages) => {
        lost.push(...messages);
        throw new Error('network');
      },
      receive: (options) => queue.receive(options),
      ack: (receipts) => queue.ack(receipts),
      release: (receipts, delayMs) => queue.release(receipts, delayMs),
    };
    return {
      queue,
      lost,
      run: async () => {
        for (let i = 0; i < 20; i++) if ((await worker.poll()) === 0) return;
      },
      /** Door X as its enqueue fails, then as it works again. */
      x: new Client({ actors: [Account], store, queue: failing, clock: ahead }),
      xAgain: new Client({ actors: [Account], store, queue, clock: ahead }),
      y: new Client({ actors: [Account], store, queue, clock }),
    };
  }
  const stateOf = async (id: string) => (await store.load(id))?.state;

  it('applies it once when the door behind sends it after the other claimed its key, and the first door retries ten minutes on', async () => {
    const { run, x, xAgain, y } = doors();
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

  it('applies it once when the copy applied carried the earlier time of the door behind, as a Baton before this one stamped it', async () => {
    const { queue, lost, run, x, xAgain } = doors();
    const account = Account.ref(`b-${randomUUID().slice(0, 8)}`);
    await expect(x.send(account, 'deposit', payload, key)).rejects.toThrow('network');
    // Door Y's copy as an earlier Baton enqueued it: the claim's message, stamped with Y's own
    // time, 30 s before the claim's.
    const claimed = decodeEnvelope(lost[0]!.body)!;
    expect(claimed.sentAt).toBe(ahead.now());
    const copy = { ...claimed, sentAt: now };
    await queue.send([{ group: account.id, dedupeId: copy.id, body: encodeEnvelope(copy) }]);
    await run();
    expect(await stateOf(account.id)).toEqual({ balance: 5, applied: 1 });

    // X's retry reads back a clocks' margin before the claim, and finds the outcome.
    now += 10 * 60_000;
    await xAgain.send(account, 'deposit', payload, key);
    await run();
    expect(await stateOf(account.id)).toEqual({ balance: 5, applied: 1 });
  });
});
