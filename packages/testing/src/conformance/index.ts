/**
 * The backend conformance kit: the scenarios of the turn protocol that every Store and Queue
 * must pass, as vitest suites. A backend author calls `backendConformance` from a test file with
 * a way to open a fresh backend; see docs/writing-a-backend.md.
 */
import type { ConformanceBackend } from './ConformanceBackend.ts';
import { conformanceSuite } from './conformanceSuite.ts';
import { keyClaimSuite } from './keyClaims.ts';
import { livesSuite } from './lives.ts';
import { manyPeersSuite } from './manyPeers.ts';
import { outcomePageSuite } from './outcomePages.ts';
import { queueLimitSuite } from './queueLimits.ts';
import { workflowSuite } from './workflowSuite.ts';

export type { ConformanceBackend } from './ConformanceBackend.ts';
export { conformanceSuite } from './conformanceSuite.ts';
export { keyClaimSuite } from './keyClaims.ts';
export { Ledger, ledgerRuns, Noted, notes } from './ledger.ts';
export { livesSuite } from './lives.ts';
export { manyPeersSuite } from './manyPeers.ts';
export { outcomePageSuite } from './outcomePages.ts';
export { ProfileV1, ProfileV2 } from './profile.ts';
export { queueLimitSuite } from './queueLimits.ts';
export { workflowSuite } from './workflowSuite.ts';

/** Options of {@link backendConformance}. */
export interface BackendConformanceOptions {
  /**
   * How many senders the many-peers scenario sends from, each with one message to one actor.
   * @default 100_000
   */
  readonly senders?: number;
}

/**
 * Registers every conformance suite (the turn protocol, workflows, idempotency key claims, what
 * is kept of ended lives, ingress outcomes in pages, SQS's queue limits and actors with many
 * peers) for the backend `open` returns, fresh for each test.
 *
 * @example
 * ```ts
 * // postgres.conformance.test.ts, run by vitest
 * import { backendConformance } from '@baton/testing/conformance';
 *
 * backendConformance('Postgres', async () => {
 *   const { store, queue, db } = await openPostgresBackend();
 *   return {
 *     store,
 *     queue,
 *     clock: systemClock,
 *     pending: () => queue.depth(),
 *     pass: (ms) => setTimeout(ms),
 *     // A record past deletableAt(record) that holds no sends, as a TTL would.
 *     expire: (actorId) => db.deleteExpired(actorId),
 *     close: () => db.drop(),
 *   };
 * });
 * ```
 */
export function backendConformance(
  name: string,
  open: () => Promise<ConformanceBackend>,
  options: BackendConformanceOptions = {},
): void {
  conformanceSuite(name, open);
  workflowSuite(name, open);
  keyClaimSuite(name, open);
  livesSuite(name, open);
  outcomePageSuite(name, open);
  queueLimitSuite(name, open);
  manyPeersSuite(name, open, options.senders ?? 100_000);
}
