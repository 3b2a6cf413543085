import { createEmbeddedBackend } from '@baton/embedded';
import { VirtualClock } from '@baton/testing';
import { backendConformance, type ConformanceBackend } from '@baton/testing/conformance';

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

// Through the kit's one entry, as a backend outside this repository runs it. Mutation testing
// runs each mutant's tests: it sets fewer senders (see stryker.config.mjs).
backendConformance('the embedded backend', open, {
  senders: Number(process.env.BATON_FAN_IN_SENDERS ?? 100_000),
});
