/**
 * Row 6's workload: one round of ingress messages spread over many actors, applied by one
 * `Worker` (batch 10) on the embedded backend, in memory. The row runs it bundled, as a
 * deployment bundles the engine (`embeddedBundle.ts`); `pnpm bench:instructions` counts it.
 */
import { actor, silentLogger } from '@baton/core';
import { encodeEnvelope, INGRESS } from '@baton/core/adapter';
import { Worker } from '@baton/core/engine';
import { createEmbeddedBackend } from '@baton/embedded';
import * as z from 'zod';
import { timeNs } from './measure.ts';

const Tally = actor({
  name: 'tally',
  state: z.object({ n: z.number().int() }),
  initial: () => ({ n: 0 }),
  handlers: {
    add: {
      payload: z.object({ by: z.number().int() }),
      handle: (ctx, { by }) => {
        ctx.state.n += by;
      },
    },
  },
});

/** One round: `messages` ingress messages over `actors` actors, polled until all are applied. */
export async function embeddedRound(
  messages: number,
  actors: number,
): Promise<{ turns: number; ns: number; cpuMicros: number }> {
  const backend = createEmbeddedBackend();
  const now = Date.now();
  const batch = [];
  for (let i = 0; i < messages; i++) {
    const to = Tally.ref(`t${i % actors}`).id;
    const envelope = {
      id: `m-${i}`,
      from: INGRESS,
      seq: 0,
      to,
      name: 'add',
      payload: { by: 1 },
      sentAt: now,
    };
    batch.push({ group: to, dedupeId: envelope.id, body: encodeEnvelope(envelope) });
  }
  await backend.queue.send(batch);
  const worker = new Worker({
    actors: [Tally],
    store: backend.store,
    queue: backend.queue,
    batchSize: 10,
    logger: silentLogger,
  });
  const cpu = process.cpuUsage();
  const ns = await timeNs(async () => {
    while ((await worker.poll()) > 0) {}
  });
  const used = process.cpuUsage(cpu);
  let turns = 0;
  const wrong: string[] = [];
  for (let a = 0; a < actors; a++) {
    const record = await backend.store.load(Tally.ref(`t${a}`).id);
    turns += record?.ver ?? 0;
    const applied = (record?.state as { n: number } | undefined)?.n ?? 0;
    // Message i went to actor i % actors: each its own count, so that a message applied twice
    // on one actor and one lost on another do not cancel out.
    const sent = Math.floor(messages / actors) + (a < messages % actors ? 1 : 0);
    if (applied !== sent) wrong.push(`t${a} applied ${applied} of its ${sent}`);
  }
  backend.close();
  if (wrong.length > 0) {
    throw new Error(
      `embedded turns: ${wrong.length} of ${actors} actors applied other than their messages (${wrong.slice(0, 5).join(', ')})`,
    );
  }
  return { turns, ns, cpuMicros: used.user + used.system };
}
