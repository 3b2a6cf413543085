/**
 * The engine's options: the defaults it resolves, and every bad value named in one error.
 */
import { ErrorCode } from '@baton/core';
import type { Queue, Store } from '@baton/core/adapter';
import { createEngine } from '@baton/core/engine';
import { createEmbeddedBackend } from '@baton/embedded';
import { describe, expect, it } from 'vitest';
import { checkRedrivePolicy } from '../../packages/core/src/engine/checkRedrivePolicy.ts';
import { bank } from './bank.ts';

const DAY = 24 * 60 * 60 * 1000;

function options(more: Record<string, unknown> = {}) {
  const { Account } = bank();
  const backend = createEmbeddedBackend();
  return { actors: [Account], store: backend.store, queue: backend.queue, ...more };
}

describe('createEngine', () => {
  it('resolves the documented defaults', () => {
    const engine = createEngine(options());
    expect(engine).toMatchObject({
      batchSize: 10,
      visibilityTimeoutMs: 30_000,
      idempotencyRetentionMs: 14 * DAY,
      markRetentionMs: 28 * DAY,
      maxAttempts: 3,
      recordPeers: 64,
      effectKeyNamespace: undefined,
    });
    expect(engine.newLife()).toMatch(/^[0-9a-z]{8,}$/);
    expect(engine.newLife()).not.toBe(engine.newLife());
  });

  it('draws life ids from the random source it is given, so a simulation replays them', () => {
    const draw = (seed: number) => {
      let x = seed;
      return () => {
        x = (x * 16807) % 2147483647;
        return x / 2147483647;
      };
    };
    const a = createEngine(options({ random: draw(7) }));
    const b = createEngine(options({ random: draw(7) }));
    expect(a.newLife()).toBe(b.newLife());
  });

  it('takes 0 for a cache size or a retention, and refuses every bad option in one error naming each', () => {
    const zeros = { cacheSize: 0, markRetentionMs: 0, idempotencyRetentionMs: 0 };
    expect(createEngine(options(zeros)).markRetentionMs).toBe(0);
    const bad = {
      batchSize: 0,
      cacheSize: -1,
      cacheBytes: -2,
      visibilityTimeoutMs: Number.NaN,
      idempotencyRetentionMs: Number.POSITIVE_INFINITY,
      markRetentionMs: -5,
      maxAttempts: 0,
      recordPeers: 0,
      effectKeyNamespace: '',
    };
    let error: unknown;
    try {
      createEngine(options(bad));
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ code: ErrorCode.INVALID_ARGUMENT });
    const message = (error as Error).message;
    expect(message).toMatch(/^invalid engine options: /);
    for (const part of [
      "batchSize must be an integer from 1 to 10 (SQS's most messages a receive), got 0",
      'cacheSize must be a number ≥ 0, got -1',
      'cacheBytes must be a number ≥ 0, got -2',
      'visibilityTimeoutMs must be a number ≥ 0, got NaN',
      'idempotencyRetentionMs must be a number ≥ 0, got Infinity',
      'markRetentionMs must be a number ≥ 0, got -5',
      'maxAttempts must be a number ≥ 1, got 0',
      'recordPeers must be a number ≥ 1, got 0',
      'effectKeyNamespace must be a non-empty string, got ""',
    ]) {
      expect(message).toContain(part);
    }
    expect(message.split('; ')).toHaveLength(9);
    expect(() => createEngine(options({ effectKeyNamespace: 7 }))).toThrow(/got 7/);
    // SQS takes 1 to 10 messages a receive: a worker asking for more would fail every poll.
    for (const batchSize of [11, 2.5]) {
      expect(() => createEngine(options({ batchSize }))).toThrow(
        `batchSize must be an integer from 1 to 10 (SQS's most messages a receive), got ${batchSize}`,
      );
    }
    expect(() =>
      createEngine(options({ batchSize: 1, maxAttempts: 1, recordPeers: 1 })),
    ).not.toThrow();
  });

  it('refuses an idempotency retention over twice the mark retention, naming both and the fix, unless a test says it runs so', () => {
    expect(() => createEngine(options({ markRetentionMs: 5 * DAY }))).toThrow(
      expect.objectContaining({
        code: ErrorCode.INVALID_ARGUMENT,
        message:
          "invalid engine options: idempotencyRetentionMs (1209600000 ms, 14 days) is over twice markRetentionMs (432000000 ms, 5 days): a client's copy of a message may outlive its actor's record and be applied again by a new life; keep it at most twice that",
      }),
    );
    expect(() =>
      createEngine(options({ markRetentionMs: 7 * DAY, idempotencyRetentionMs: 14 * DAY + 1 })),
    ).toThrow(/is over twice markRetentionMs/);
    expect(() =>
      createEngine(options({ markRetentionMs: 7 * DAY, idempotencyRetentionMs: 14 * DAY })),
    ).not.toThrow();
    // A retention refused as it is (negative, not finite) is reported alone, not as a pair.
    for (const [bad, told] of [
      [{ markRetentionMs: -5 }, 'markRetentionMs must be a number ≥ 0, got -5'],
      [
        { idempotencyRetentionMs: Number.POSITIVE_INFINITY },
        'idempotencyRetentionMs must be a number ≥ 0, got Infinity',
      ],
    ] as const) {
      expect(() => createEngine(options(bad))).toThrow(`invalid engine options: ${told}`);
      expect(() => createEngine(options(bad))).not.toThrow(/is over twice/);
    }
    // No mark kept at all, with keys kept: refused too.
    expect(() => createEngine(options({ markRetentionMs: 0 }))).toThrow(
      /is over twice markRetentionMs \(0 ms, 0 days\)/,
    );
    const allowed = { markRetentionMs: 5 * DAY, allowShortMarkRetention: true };
    expect(createEngine(options(allowed)).markRetentionMs).toBe(5 * DAY);
  });

  it('requires a store and a queue', () => {
    const { store, queue } = options();
    for (const missing of [
      { store: undefined as unknown as Store },
      { queue: undefined as unknown as Queue },
    ]) {
      expect(() => createEngine(options(missing))).toThrow(/store and queue are required/);
    }
    expect(() => createEngine(options({ store, queue }))).not.toThrow();
  });

  it('accepts a queue that leaves the engine one receive more than its attempts, and names both numbers and the fix otherwise', async () => {
    const engine = (maxReceives: number | undefined) =>
      createEngine(
        options({
          maxAttempts: 3,
          queue: {
            redrivePolicy: maxReceives === undefined ? undefined : async () => ({ maxReceives }),
          } as unknown as Queue,
        }),
      );
    await expect(checkRedrivePolicy(engine(4))).resolves.toEqual({ maxReceives: 4 });
    await expect(checkRedrivePolicy(engine(undefined))).resolves.toBeUndefined();
    await expect(checkRedrivePolicy(engine(3))).rejects.toMatchObject({
      code: ErrorCode.INVALID_ARGUMENT,
      message: expect.stringMatching(
        /after 3 receives, .*maxAttempts = 3 deliveries.*to 5 or more, or the worker's maxAttempts below 3$/,
      ),
      details: { maxReceives: 3, maxAttempts: 3 },
    });
  });
});
