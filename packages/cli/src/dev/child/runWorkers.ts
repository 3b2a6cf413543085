import { toBatonError } from '@baton/core';
import { type Engine, Sweeper } from '@baton/core/engine';
import type { DevBackend } from './DevBackend.ts';
import type { RecordingWorker } from './RecordingWorker.ts';

/**
 * Worker loops, durable timers and a periodic sweeper over `backend`, as `startEmbedded` runs
 * them. Without a timer pump (local-aws) the sweeper fires due timers, so sweeps are frequent.
 */
export function runWorkers(
  engine: Engine,
  worker: RecordingWorker,
  backend: DevBackend,
  concurrency = 4,
): { stop(): Promise<void> } {
  let running = true;
  const loop = async () => {
    while (running) {
      const received = await worker.poll().catch((error: unknown) => {
        engine.logger.error('worker poll failed', { error: toBatonError(error).message });
        return 0;
      });
      if (received === 0 && running) await backend.waitForWork();
    }
  };
  const loops = Array.from({ length: concurrency }, loop);
  const timers = backend.fireTimers?.(engine);
  const sweeper = new Sweeper(engine);
  const sweeps = setInterval(
    () => {
      sweeper.sweep().catch((error: unknown) => {
        engine.logger.error('sweep failed', { error: toBatonError(error).message });
      });
    },
    timers ? 10_000 : 1_000,
  );
  return {
    async stop() {
      running = false;
      clearInterval(sweeps);
      await timers?.stop();
      backend.wake();
      await Promise.all(loops);
    },
  };
}
