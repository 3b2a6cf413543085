import { createEmbeddedBackend, TimerPump } from '@baton/embedded';
import type { ChildConfig } from '../protocol.ts';
import type { DevBackend } from './DevBackend.ts';

/**
 * The embedded backend, journaled to `dataDir` when one is given. The journal's lock names this
 * process; after a SIGKILL the next app process finds that process gone and takes the lock over.
 */
export function embeddedBackend({ dataDir }: Pick<ChildConfig, 'dataDir'>): DevBackend {
  const backend = createEmbeddedBackend(dataDir === undefined ? {} : { dataDir });
  const { store, queue } = backend;
  const sleepers = new Set<() => void>();
  const wake = () => {
    for (const done of [...sleepers]) done();
  };
  const unsubscribe = queue.onAvailable(wake);
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
    waitForWork: () =>
      new Promise<void>((resolve) => {
        const next = queue.nextVisibleAt();
        const delay = next === undefined ? 1000 : Math.max(0, next - Date.now());
        const timer = setTimeout(done, Math.min(delay, 1000));
        sleepers.add(done);
        function done() {
          clearTimeout(timer);
          sleepers.delete(done);
          resolve();
        }
      }),
    wake,
    fireTimers: (engine) => new TimerPump(engine, store),
    close: async () => {
      unsubscribe();
      wake();
      backend.close();
    },
  };
}
