import { describe, expect, it } from 'vitest';
import type { PagedOutcome, Store } from '../adapter/ports.ts';
import {
  appendOutcomes,
  maxOutcomeBytes,
  outcomeBytes,
  PAGE_BYTES,
  pageBytes,
  pagesOutcomes,
} from './outcomePages.ts';

const outcome = (key: string, sentAt: number, pad = 0): PagedOutcome => ({
  key,
  actorId: 'counter/c',
  outcome: { ok: true, value: 'x'.repeat(pad) },
  expiresAt: 1e12,
  sentAt,
});

const limits = { maxTransactionItems: 100, maxTransactionBytes: 4_000_000, maxItemBytes: 400_000 };
const paged = { limits, readPagedOutcomes: async () => [] } as unknown as Store;
const unpaged = { limits } as unknown as Store;

describe('outcome pages', () => {
  it('are kept by a store that reads them back, and leave an outcome the item less a page', () => {
    expect(pagesOutcomes(paged)).toBe(true);
    expect(pagesOutcomes(unpaged)).toBe(false);
    expect(pageBytes(400_000)).toBe(PAGE_BYTES);
    expect(pageBytes(2_000)).toBe(500);
    expect(maxOutcomeBytes(paged)).toBe(400_000 - PAGE_BYTES);
    expect(maxOutcomeBytes(unpaged)).toBe(400_000);
  });

  it('append to the open page, tracking its bytes and latest sentAt', () => {
    const first = outcome('a', 30);
    const { state, write } = appendOutcomes(
      { page: 0, bytes: 0 },
      [first, outcome('b', 10)],
      400_000,
    );
    expect(state).toEqual({ page: 0, bytes: outcomeBytes(first) * 2, sentAt: 30 });
    expect(write).toMatchObject({ page: 0, sentAt: 30 });
    expect(write.records.map((r) => r.key)).toEqual(['a', 'b']);
    // An empty commit's page state stays without a sentAt.
    expect(appendOutcomes({ page: 2, bytes: 0 }, [], 400_000).state).toEqual({ page: 2, bytes: 0 });
  });

  it('close a full page: the next begins, and the closed pages’ latest sentAt only grows', () => {
    const state = { page: 3, bytes: 0, closedSentAt: 50, itemsBefore: 7 };
    const closed = appendOutcomes(state, [outcome('a', 20, 600)], 2_000);
    // Written to the page it fills; the record moves on, keeping what it knew of earlier items.
    expect(closed.write).toMatchObject({ page: 3, sentAt: 50 });
    expect(closed.state).toEqual({ page: 4, bytes: 0, closedSentAt: 50, itemsBefore: 7 });
    const later = appendOutcomes({ page: 4, bytes: 0 }, [outcome('b', 90, 600)], 2_000);
    expect(later.state).toEqual({ page: 5, bytes: 0, closedSentAt: 90 });
  });
});
