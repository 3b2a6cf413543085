/**
 * SQS's limits on any backend's queue: what SQS refuses is refused alike (INVALID_ARGUMENT,
 * before anything is received), so an app that runs on the embedded backend is not one that
 * fails on AWS.
 */
import {
  ErrorCode,
  MAX_RECEIVE_MESSAGES,
  MAX_VISIBILITY_TIMEOUT_MS,
  silentLogger,
} from '@baton/core';
import { Worker } from '@baton/core/engine';
import { describe, expect, it } from 'vitest';
import type { ConformanceBackend } from './ConformanceBackend.ts';
import { Ledger } from './ledger.ts';
import { backendPerTest } from './suiteBackend.ts';

export function queueLimitSuite(name: string, open: () => Promise<ConformanceBackend>): void {
  describe(`SQS's queue limits on ${name}`, () => {
    const fresh = backendPerTest(open);

    async function start() {
      const b = await fresh();
      const engineOptions = {
        actors: [Ledger],
        store: b.store,
        queue: b.queue,
        clock: b.clock,
        logger: silentLogger,
        visibilityTimeoutMs: 2_000,
      };
      return { b, engineOptions };
    }

    it("refuses a receive of more than SQS's 10 messages, and a worker's batchSize over it", async () => {
      const { b, engineOptions } = await start();
      await b.queue.send([{ group: 'ledger/a', dedupeId: 'a-1', body: '{}' }]);
      const over = { max: MAX_RECEIVE_MESSAGES + 1, visibilityTimeoutMs: 2_000 };
      await expect(b.queue.receive(over)).rejects.toMatchObject({
        code: ErrorCode.INVALID_ARGUMENT,
      });
      expect(() => new Worker({ ...engineOptions, batchSize: MAX_RECEIVE_MESSAGES + 1 })).toThrow(
        /batchSize must be an integer from 1 to 10/,
      );
      // Nothing was taken: the most SQS takes receives the message.
      const most = { max: MAX_RECEIVE_MESSAGES, visibilityTimeoutMs: 2_000 };
      expect(await b.queue.receive(most)).toHaveLength(1);
    });

    it("refuses a visibility timeout over SQS's 12 hours, for a receive and for a worker, and releases for at most that long", async () => {
      const { b, engineOptions } = await start();
      const over = MAX_VISIBILITY_TIMEOUT_MS + 1_000;
      await expect(b.queue.receive({ max: 1, visibilityTimeoutMs: over })).rejects.toMatchObject({
        code: ErrorCode.INVALID_ARGUMENT,
      });
      expect(() => new Worker({ ...engineOptions, visibilityTimeoutMs: over })).toThrow(
        /visibilityTimeoutMs/,
      );
      // Right after the receive, a release asked for longer is one of the longest SQS takes.
      await b.queue.send([{ group: 'ledger/slow', dedupeId: 'slow-1', body: '{}' }]);
      const [message] = await b.queue.receive({ max: 1, visibilityTimeoutMs: 2_000 });
      await b.queue.release([message!.receipt], over);
      expect(await b.queue.receive({ max: 1, visibilityTimeoutMs: 2_000 })).toEqual([]);
    });
  });
}
