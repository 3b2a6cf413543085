import { createEmbeddedBackend } from '@baton/embedded';
import { VirtualClock } from '@baton/testing';
import type { ConformanceBackend } from './ConformanceBackend.ts';
import { conformanceSuite } from './conformanceSuite.ts';
import { keyClaimSuite } from './keyClaims.ts';
import { manyPeersSuite } from './manyPeers.ts';
import { workflowSuite } from './workflowSuite.ts';

async function open(): Promise<ConformanceBackend> {
  const clock = new VirtualClock();
  const backend = createEmbeddedBackend({ clock });
  return {
    store: backend.store,
    queue: backend.queue,
    clock,
    pending: async () => backend.queue.counts().total,
    pass: async (ms) => clock.advance(ms),
    expire: async () => backend.store.purgeExpired(),
    close: async () => backend.close(),
  };
}

conformanceSuite('the embedded backend', open);
workflowSuite('the embedded backend', open);
keyClaimSuite('the embedded backend', open);
// Mutation testing runs each mutant's tests: it sets fewer senders (see stryker.config.mjs).
manyPeersSuite('the embedded backend', open, Number(process.env.BATON_FAN_IN_SENDERS ?? 100_000));
