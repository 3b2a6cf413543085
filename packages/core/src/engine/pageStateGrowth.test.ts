import { describe, expect, it } from 'vitest';
import type { ActorRecord, OutcomePageState } from '../adapter/storedRecords.ts';
import { jsonSize } from '../shared/jsonSize.ts';
import { pageStateGrowth } from './pageStateGrowth.ts';

const record = (outcomePage?: OutcomePageState): ActorRecord => ({
  id: 'tally/a',
  ver: 3,
  inboxOffset: '7',
  marks: {},
  sentSeq: 0,
  state: { n: 1 },
  ...(outcomePage ? { outcomePage } : {}),
});

/** The growth as measured whole: the state at its widest, both times set, less the state. */
function measured(state: OutcomePageState): number {
  const time = 9_999_999_999_999;
  const widest = {
    ...state,
    page: 99_999_999_999_999,
    bytes: 99_999,
    sentAt: time,
    closedSentAt: time,
  };
  return Math.max(0, jsonSize(widest) - jsonSize(state));
}

describe('pageStateGrowth', () => {
  it('is 0 for a record without outcome pages', () => {
    expect(pageStateGrowth(record())).toBe(0);
  });

  it.each<[string, OutcomePageState]>([
    ['a page just begun', { page: 0, bytes: 0 }],
    ['a page begun on an older record', { page: 0, bytes: 0, itemsBefore: 1_795_810_634_166 }],
    ['an open page', { page: 3, bytes: 1_055, sentAt: 1_795_810_634_166 }],
    ['a page after a closed one', { page: 12, bytes: 0, closedSentAt: 1_795_810_634_166 }],
    [
      'every field set',
      { page: 4_321, bytes: 8_000, sentAt: 1_795_810_634_166, closedSentAt: 1_795_810_600_000 },
    ],
    ['short times', { page: 1, bytes: 20, sentAt: 5, closedSentAt: 7 }],
    [
      'numbers at their widest',
      {
        page: 99_999_999_999_999,
        bytes: 99_999,
        sentAt: 9_999_999_999_999,
        closedSentAt: 9_999_999_999_999,
      },
    ],
  ])('is what measuring the widest state gives, for %s', (_, state) => {
    expect(pageStateGrowth(record(state))).toBe(measured(state));
  });

  it('never counts below 0, for numbers past the widest', () => {
    const state = { page: 1e15, bytes: 1_000_000, sentAt: 1e15, closedSentAt: 1e15 };
    expect(measured(state)).toBe(0);
    expect(pageStateGrowth(record(state))).toBe(0);
  });
});
