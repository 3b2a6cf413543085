import { createEmbeddedBackend } from '@baton/embedded';
import { VirtualClock } from '@baton/testing';
import { conformanceSuite } from './conformanceSuite.ts';

conformanceSuite('the embedded backend', async () => {
  const clock = new VirtualClock();
  const backend = createEmbeddedBackend({ clock });
  return {
    store: backend.store,
    queue: backend.queue,
    clock,
    pending: async () => backend.queue.counts().total,
    pass: async (ms) => clock.advance(ms),
    close: async () => backend.close(),
  };
});
