import {
  type AnyActorDefinition,
  type AnyEffectDefinition,
  Client,
  type Logger,
  toBatonError,
} from '@baton/core';
import { createEngine, type Engine, Sweeper, Worker } from '@baton/core/engine';
import {
  createEmbeddedBackend,
  type EmbeddedBackend,
  type EmbeddedBackendOptions,
} from './createEmbeddedBackend.ts';
import { TimerPump } from './TimerPump.ts';

/** Options of {@link startEmbedded}. */
export interface EmbeddedRuntimeOptions extends EmbeddedBackendOptions {
  readonly actors: readonly AnyActorDefinition[];
  /** The effects handlers may ask for (`ctx.effect`), run by the worker loops. */
  readonly effects?: readonly AnyEffectDefinition[];
  /** Worker loops running at once (each handles one batch at a time). Default: 4. */
  readonly concurrency?: number;
  /** How often the sweeper looks for undrained outboxes. Default: 30 s. */
  readonly sweepIntervalMs?: number;
  readonly logger?: Logger;
}

/** A running app on the embedded backend. */
export interface EmbeddedRuntime {
  readonly backend: EmbeddedBackend;
  readonly client: Client;
  readonly engine: Engine;
  /** Resolves once every message sent so far is processed and every outbox drained. */
  idle(): Promise<void>;
  /** Stops the loops (finishing the batches in hand) and closes the backend. */
  stop(): Promise<void>;
}

/**
 * Runs an app in this process: worker loops that wake when messages arrive, durable timers
 * fired when due, a periodic sweeper, and a client for ingress. With `dataDir`, everything committed survives a restart.
 *
 * @example
 * const app = startEmbedded({ actors: [Account], dataDir: '.baton/data' });
 * await app.client.send(Account.ref('alice'), 'deposit', { amount: 5 });
 * console.log(await app.client.ask(Account.ref('alice'), 'balance', {}));
 * await app.stop();
 */
export function startEmbedded(options: EmbeddedRuntimeOptions): EmbeddedRuntime {
  const backend = createEmbeddedBackend(options);
  const clock = options.clock;
  const engine = createEngine({
    actors: options.actors,
    ...(options.effects ? { effects: options.effects } : {}),
    store: backend.store,
    queue: backend.queue,
    ...(clock ? { clock } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
  });
  const worker = new Worker(engine);
  const sweeper = new Sweeper(engine);
  const client = new Client({
    actors: options.actors,
    store: backend.store,
    queue: backend.queue,
    ...(clock ? { clock } : {}),
  });
  let running = true;
  const sleepers = new Set<() => void>();
  const wakeAll = () => {
    for (const wake of [...sleepers]) wake();
  };
  const unsubscribe = backend.queue.onAvailable(wakeAll);

  /** Sleeps until a message may be receivable: a send, a release, a timeout, or stop. */
  const waitForWork = () =>
    new Promise<void>((resolve) => {
      const next = backend.queue.nextVisibleAt();
      const delay = next === undefined ? 1000 : Math.max(0, next - engine.clock.now());
      const timer = setTimeout(done, Math.min(delay, 1000));
      sleepers.add(done);
      function done() {
        clearTimeout(timer);
        sleepers.delete(done);
        resolve();
      }
    });

  const loop = async () => {
    while (running) {
      const received = await worker.poll().catch((error: unknown) => {
        engine.logger.error('worker poll failed', { error: toBatonError(error).message });
        return 0;
      });
      if (received === 0 && running) await waitForWork();
    }
  };
  const loops = Array.from({ length: options.concurrency ?? 4 }, loop);
  const timers = new TimerPump(engine, backend.store);
  const sweeps = setInterval(() => {
    sweeper.sweep().catch((error: unknown) => {
      engine.logger.error('sweep failed', { error: toBatonError(error).message });
    });
  }, options.sweepIntervalMs ?? 30_000);

  return {
    backend,
    client,
    engine,
    async idle() {
      for (;;) {
        const counts = backend.queue.counts();
        if (counts.total === 0 && backend.store.outboxSize() === 0) return;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    },
    async stop() {
      running = false;
      clearInterval(sweeps);
      await timers.stop();
      unsubscribe();
      wakeAll();
      await Promise.all(loops);
      backend.close();
    },
  };
}
