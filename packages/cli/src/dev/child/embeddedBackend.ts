import { createEmbeddedBackend, queueWaiter, TimerPump } from '@baton/embedded';
import type { ChildConfig } from '../protocol.ts';
import type { DevBackend } from './DevBackend.ts';

/**
 * The embedded backend, journaled to `dataDir` when one is given. The journal's lock names this
 * process; after a SIGKILL the next app process finds that process gone and takes the lock over.
 */
export function embeddedBackend({ dataDir }: Pick<ChildConfig, 'dataDir'>): DevBackend {
  const backend = createEmbeddedBackend(dataDir === undefined ? {} : { dataDir });
  const { store, queue } = backend;
  const waiter = queueWaiter(queue);
  return {
    label: dataDir === undefined ? 'embedded, in memory' : `embedded, data in ${dataDir}`,
    store,
    queue,
    feed: backend.feed,
    listActors: async () => store.records(),
    actorsListed: 'all',
    depths: async () => {
      const counts = queue.counts();
      return { inbox: counts.total, inFlight: counts.inFlight, outbox: store.outboxSize() };
    },
    waitForWork: waiter.waitForWork,
    wake: waiter.wake,
    fireTimers: (engine) => new TimerPump(engine, store),
    close: async () => {
      waiter.close();
      backend.close();
    },
  };
}
