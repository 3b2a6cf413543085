/**
 * Drives workflows on the embedded backend with a virtual clock: `run()` polls until the inbox
 * is empty, then moves the clock to the soonest stored timer and fires it, until nothing is
 * left — so a month of sleeps passes in milliseconds.
 */
import type { AnyActorDefinition } from '@baton/core';
import { fireDueTimers } from '@baton/core/engine';
import { type Harness, runUntilIdle, type SetupOptions, setup } from '../engine/helpers.ts';

export interface WorkflowHarness extends Harness {
  /**
   * Runs until no message and no timer is left but finished instances' expiry (unless
   * `expire`), or only timers past `until`.
   */
  runAll(options?: { until?: number; expire?: boolean }): Promise<void>;
}

export function workflowHarness(
  actors: readonly AnyActorDefinition[],
  options: Omit<SetupOptions, 'actors'> = {},
): WorkflowHarness {
  const h = setup({ actors, ...options });
  return {
    ...h,
    async runAll({ until = Number.POSITIVE_INFINITY, expire = false } = {}) {
      for (let round = 0; round < 10_000; round++) {
        await runUntilIdle(h.worker, h.backend, h.clock);
        const timers = await h.backend.store.listDueTimers(Number.MAX_SAFE_INTEGER, 1_000);
        const soonest = timers.find((t) => expire || t.id !== 'wf:expire');
        if (!soonest || soonest.at > until) return;
        h.clock.set(soonest.at);
        await fireDueTimers(h.engine, h.clock.now());
      }
      throw new Error('timers kept firing after 10,000 rounds');
    },
  };
}
