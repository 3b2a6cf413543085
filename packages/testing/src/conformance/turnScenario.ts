/**
 * How a scenario of the conformance suites begins: a fresh backend, a worker and a trusted client
 * on it, over the ledger actors (or `actors`), with a way to run the worker until the inbox is
 * empty and to read an actor's ledger state. Each scenario gets its own backend.
 */
import { type AnyActorDefinition, silentLogger } from '@baton/core';
import { Client } from '@baton/core/client';
import { Worker } from '@baton/core/engine';
import type { ConformanceBackend } from './ConformanceBackend.ts';
import { Ledger, Noted } from './ledger.ts';
import { pollUntilEmpty } from './suiteBackend.ts';

/** Begins a scenario on a backend `fresh` opens (see `backendPerTest`). */
export function turnScenario(fresh: () => Promise<ConformanceBackend>) {
  return async (actors: readonly AnyActorDefinition[] = [Ledger]) => {
    const b = await fresh();
    const engineOptions = {
      actors,
      effects: [Noted],
      store: b.store,
      queue: b.queue,
      clock: b.clock,
      logger: silentLogger,
      visibilityTimeoutMs: 2_000,
    };
    const worker = new Worker(engineOptions);
    const client = new Client({
      actors,
      store: b.store,
      queue: b.queue,
      clock: b.clock,
    }).asSystem();
    const run = (w = worker) => pollUntilEmpty(w, b);
    const state = async (id: string) =>
      (await b.store.load(id))?.state as { entries: string[]; total: number } | undefined;
    return { b, worker, client, run, state, engineOptions };
  };
}

/** What {@link turnScenario} makes: begins one scenario. */
export type StartScenario = ReturnType<typeof turnScenario>;
