/**
 * Drives workflows on the embedded backend with a virtual clock: `runAll()` polls until the
 * inbox is empty, then moves the clock to the soonest stored timer and fires it, until nothing
 * is left — so a month of sleeps passes in milliseconds. `deploy()` swaps in new code.
 */
import { type AnyActorDefinition, silentLogger, type WorkflowState } from '@baton/core';
import { isRetentionTimer, type OverflowMark } from '@baton/core/adapter';
import { Client } from '@baton/core/client';
import { createEngine, type Engine, fireDueTimers, Worker } from '@baton/core/engine';
import { type Harness, runUntilIdle, type SetupOptions, setup } from '../engine/helpers.ts';

export interface WorkflowHarness extends Harness {
  /**
   * Runs until no message and no timer is left but finished instances' expiry (unless
   * `expire`), or only timers past `until`.
   */
  runAll(options?: { until?: number; expire?: boolean }): Promise<void>;
  /** Runs `actors` (new code) from now on: a new worker, engine and client on the same backend. */
  deploy(actors: readonly AnyActorDefinition[]): void;
  /**
   * Rewrites instance `id`'s committed record with `change(state)`, as an earlier release would
   * have left it (a field it did not write, a value it allowed), and drops the warm runs and
   * cached records, so the next turn reads it from the store.
   */
  rewriteState(id: string, change: (state: WorkflowState) => WorkflowState): Promise<void>;
  /**
   * A client as a host holds it for callers outside the app: it speaks for the caller each call
   * names (anonymous when none), where `client` is trusted code's.
   */
  readonly door: Client;
}

export function workflowHarness(
  actors: readonly AnyActorDefinition[],
  options: Omit<SetupOptions, 'actors'> = {},
): WorkflowHarness {
  const h = setup({ actors, ...options });
  let worker = h.worker;
  let engine: Engine = h.engine;
  const ports = { store: h.backend.store, queue: h.backend.queue, clock: h.clock };
  const harness: WorkflowHarness = {
    ...h,
    door: new Client({ actors, ...ports }),
    async runAll({ until = Number.POSITIVE_INFINITY, expire = false } = {}) {
      for (let round = 0; round < 10_000; round++) {
        await runUntilIdle(worker, h.backend, h.clock);
        const timers = await h.backend.store.listDueTimers(Number.MAX_SAFE_INTEGER, 1_000);
        const soonest = timers.find((t) => expire || !isRetentionTimer(t));
        if (!soonest || soonest.at > until) return;
        h.clock.set(soonest.at);
        await fireDueTimers(engine, h.clock.now());
      }
      throw new Error('timers kept firing after 10,000 rounds');
    },
    async rewriteState(id, change) {
      const record = (await h.record(id))!;
      const { drivenBy: _warm, ...state } = record.state as WorkflowState;
      await h.backend.store.commit({
        expectedVer: record.ver,
        record: { ...record, ver: record.ver + 1, state: change(state) },
        outbox: [],
        idempotency: [],
      });
      engine.cache.clear();
    },
    deploy(next) {
      engine = createEngine({ actors: next, ...ports, logger: options.logger ?? silentLogger });
      worker = new Worker(engine);
      (harness as { client: Client }).client = new Client({ actors: next, ...ports }).asSystem();
      (harness as { door: Client }).door = new Client({ actors: next, ...ports });
    },
  };
  return harness;
}

/** The history page items the store holds for `actorId` (after purging expired ones). */
export function storedPages(h: Harness, actorId: string): OverflowMark[] {
  h.backend.store.purgeExpired();
  return h.backend.store
    .snapshot()
    .flatMap((entry) => {
      const commit = entry as { record?: { id: string }; overflow?: OverflowMark[] };
      return commit.record?.id === actorId ? (commit.overflow ?? []) : [];
    })
    .filter((mark) => mark.kind === 'page');
}
