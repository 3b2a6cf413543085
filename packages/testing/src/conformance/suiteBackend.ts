import type { Worker } from '@baton/core/engine';
import { afterEach } from 'vitest';
import type { ConformanceBackend } from './ConformanceBackend.ts';

/**
 * Gives each test of the enclosing `describe` its own backend, closed after the test. Call it
 * in the `describe`; call what it returns in the test.
 *
 * @example
 * const fresh = backendPerTest(open);
 * it('…', async () => { const b = await fresh(); });
 */
export function backendPerTest(
  open: () => Promise<ConformanceBackend>,
): () => Promise<ConformanceBackend> {
  let backend: ConformanceBackend | undefined;
  afterEach(async () => {
    await backend?.close();
    backend = undefined;
  });
  return async () => {
    backend = await open();
    return backend;
  };
}

/** Polls until the inbox is empty, letting backend time pass while only hidden messages wait. */
export async function pollUntilEmpty(worker: Worker, b: ConformanceBackend): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if ((await worker.poll()) > 0) continue;
    if ((await b.pending()) === 0) return;
    await b.pass(250);
  }
  throw new Error('the inbox did not empty');
}
