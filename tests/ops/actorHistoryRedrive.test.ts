/**
 * The actor history the CLI shows (`recentOutcomes`: `baton inspect`, `baton dev`'s actor page)
 * of a message kept as a dead letter for its code's fault (state its schema refuses), then
 * redriven once the fix is deployed. On DynamoDB the outcome page keeps the first outcome and the
 * redrive's is kept apart; the history reads a dead-lettered outcome again by its key.
 */
import { randomUUID } from 'node:crypto';
import { createAwsClients, createTable, DynamoStore } from '@baton/aws';
import { actor, ErrorCode, silentLogger } from '@baton/core';
import { Client } from '@baton/core/client';
import { createEngine, redriveDeadLetter, Worker } from '@baton/core/engine';
import { createEmbeddedBackend } from '@baton/embedded';
import { describe, expect, inject, it } from 'vitest';
import * as z from 'zod';
import { recentOutcomes } from '../../packages/cli/src/actorHistory.ts';
import { settled } from '../engine/helpers.ts';

let strict = true;
const Counter = actor({
  name: 'counter',
  state: z.object({ count: z.number().refine((n) => !strict || Number.isInteger(n)) }),
  initial: () => ({ count: 0 }),
  handlers: {
    add: {
      payload: z.object({ by: z.number() }),
      handle: (ctx, { by }) => {
        ctx.state.count += by;
        return ctx.state.count;
      },
    },
  },
});

describe('the CLI history of a message its code dead-lettered, then redriven (DynamoDB Local)', () => {
  it('shows its new outcome once the fix is deployed and it is redriven', async () => {
    strict = true;
    const { dynamodb } = createAwsClients({ dynamodbEndpoint: inject('dynamodbEndpoint') });
    const name = `history-${randomUUID().slice(0, 8)}`;
    await createTable(dynamodb, name);
    const store = new DynamoStore({ client: dynamodb, tableName: name });
    const { queue } = createEmbeddedBackend();
    const engine = createEngine({ actors: [Counter], store, queue, logger: silentLogger });
    const worker = new Worker(engine);
    const client = new Client({ actors: [Counter], store, queue, askTimeoutMs: 10_000 }).asSystem();
    const drain = async () => {
      for (let i = 0; i < 50; i++) if ((await worker.poll()) === 0) return;
    };
    const ref = Counter.ref('c');
    let settledYet = false;
    const first = settled(client.ask(ref, 'add', { by: 0.5 }, { idempotencyKey: 'k1' })).then(
      (r) => {
        settledYet = true;
        return r;
      },
    );
    for (let i = 0; i < 200 && !settledYet; i++) {
      if ((await worker.poll()) === 0) await new Promise((r) => setTimeout(r, 20));
    }
    expect(await first).toMatchObject({ ok: false, error: { code: ErrorCode.DEAD_LETTERED } });
    const [letter] = await store.listDeadLetters(ref.id);
    strict = false; // the fix, deployed
    // A client's ask, told DEAD_LETTERED: nobody acted on that answer here.
    await redriveDeadLetter(store, queue, ref.id, letter!.messageId, { force: true });
    await drain();
    expect((await store.load(ref.id))?.state).toEqual({ count: 0.5 });
    // The engine's read (a client's retry) sees the redrive's outcome...
    const retry = client.ask(ref, 'add', { by: 0.5 }, { idempotencyKey: 'k1' });
    await drain();
    expect(await retry).toBe(0.5);
    // ...and so does the CLI's history.
    const outcomes = await recentOutcomes(store, (await store.load(ref.id))!);
    expect(outcomes.map((o) => o.outcome)).toEqual([{ ok: true, value: 0.5 }]);
  });
});
