import type {
  AnyActorDefinition,
  AnyEffectDefinition,
  AnyWorkflowDefinition,
  Logger,
} from '@baton/core';
import { systemClock } from '@baton/core/adapter';
import { Client } from '@baton/core/client';
import {
  createEngine,
  type Engine,
  type EngineOptions,
  startWorkerLoops,
  Worker,
} from '@baton/core/engine';
import {
  createEmbeddedBackend,
  type EmbeddedBackend,
  type EmbeddedBackendOptions,
} from './createEmbeddedBackend.ts';
import { type IdleOptions, type IdleReport, waitUntilIdle } from './idle.ts';
import { queueWaiter } from './queueWaiter.ts';
import { TimerPump } from './TimerPump.ts';

/** Options of {@link startEmbedded}. */
export interface EmbeddedRuntimeOptions
  extends EmbeddedBackendOptions,
    Pick<
      EngineOptions,
      'onTurnStart' | 'onCommit' | 'onTurn' | 'onDeadLetter' | 'workflowCacheSize'
    > {
  readonly actors: readonly AnyActorDefinition[];
  /** Durable workflows: their actor types join `actors`, as `defineApp`'s do. */
  readonly workflows?: readonly AnyWorkflowDefinition[];
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
  /**
   * Resolves once every message sent so far is processed, every outbox drained, and every
   * durable timer due within `timersWithinMs` (default 1 s; on a clock of the caller's own, 0:
   * only those due by then, as nothing else moves it) of the call has fired and been handled,
   * with all it sent. Timers due later are not waited for: the report counts them.
   */
  idle(options?: IdleOptions): Promise<IdleReport>;
  /** Stops the loops (finishing the batches in hand) and closes the backend. */
  stop(): Promise<void>;
}

/** How often waits are looked at again on a clock a test moves (see `recheckMs` below). */
const VIRTUAL_RECHECK_MS = 20;

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
  // A `defineApp` app lists its workflows' actor types among its actors already.
  const workflows = (options.workflows ?? []).map((w) => w.actor);
  const actors = [...options.actors, ...workflows.filter((a) => !options.actors.includes(a))];
  const engine = createEngine({
    actors,
    ...(options.effects ? { effects: options.effects } : {}),
    store: backend.store,
    queue: backend.queue,
    ...(clock ? { clock } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
    onTurnStart: options.onTurnStart,
    onCommit: options.onCommit,
    onTurn: options.onTurn,
    onDeadLetter: options.onDeadLetter,
    ...(options.workflowCacheSize === undefined
      ? {}
      : { workflowCacheSize: options.workflowCacheSize }),
  });
  const client = new Client({
    actors,
    store: backend.store,
    queue: backend.queue,
    ...(clock ? { clock } : {}),
  });
  // On a clock of the caller's own, which moves by `advance` and no real timer follows, the
  // waits for a message's visibility and a timer's due time are looked at again this often.
  const recheckMs = clock && clock !== systemClock ? VIRTUAL_RECHECK_MS : undefined;
  const waiter = queueWaiter(backend.queue, () => engine.clock.now(), recheckMs);
  const loops = startWorkerLoops(new Worker(engine), {
    waitForWork: waiter.waitForWork,
    wake: waiter.wake,
    concurrency: options.concurrency,
    sweepIntervalMs: options.sweepIntervalMs,
  });
  const timers = new TimerPump(engine, backend.store, recheckMs);

  return {
    backend,
    client,
    engine,
    // On a clock of the caller's own, time moves only when the caller moves it: a timer not due
    // yet would be waited for forever.
    idle: (idleOptions) =>
      waitUntilIdle(
        backend,
        engine.clock,
        recheckMs === undefined
          ? idleOptions
          : { ...idleOptions, timersWithinMs: idleOptions?.timersWithinMs ?? 0 },
      ),
    async stop() {
      await timers.stop();
      waiter.close();
      await loops.stop();
      backend.close();
    },
  };
}
