import { describe, expect, it } from 'vitest';
import type { Envelope } from '../adapter/envelope.ts';
import type { SenderMark } from '../adapter/marks.ts';
import {
  type Arrival,
  classify,
  forgetOldestGaps,
  inForgottenGaps,
  markAfter,
  markProves,
  maxGaps,
  pruneChannels,
  RECORD_GAPS,
} from './channels.ts';

/** A message from actor s with its sender seq and the seq of its previous message to us. */
const msg = (seq: number, prev?: number): Envelope => ({
  id: `box/s:${seq}`,
  from: 'box/s',
  seq,
  ...(prev === undefined ? {} : { prev }),
  to: 'box/t',
  name: 'put',
  payload: {},
  sentAt: 0,
});

/** Applies messages in arrival order; returns what each was classified as and the final mark. */
function receive(envelopes: readonly Envelope[], start?: SenderMark) {
  let mark = start;
  const kinds: Arrival['kind'][] = [];
  for (const envelope of envelopes) {
    const arrival = classify(mark, envelope);
    kinds.push(arrival.kind);
    if (arrival.kind !== 'duplicate') mark = markAfter(mark, envelope, arrival, 1);
  }
  return { kinds, mark };
}

describe('classify', () => {
  it('takes the first message of a channel, and each next one, in order', () => {
    // Seqs 2 and 4 went to other targets: prev links the channel's own messages.
    expect(receive([msg(1, 0), msg(3, 1), msg(5, 3)]).kinds).toEqual(['next', 'next', 'next']);
  });

  it('skips a message at or below the mark that no gap announced', () => {
    const mark: SenderMark = { seq: 5, at: 0 };
    expect(classify(mark, msg(5, 3)).kind).toBe('duplicate');
    expect(classify(mark, msg(1, 0)).kind).toBe('duplicate');
    expect(classify(mark, msg(6, 5)).kind).toBe('next');
  });

  it('reports a gap from the mark up to the prev of a message that overtook others', () => {
    expect(classify({ seq: 2, at: 0 }, msg(9, 7))).toEqual({ kind: 'gap', missing: [2, 7] });
    expect(classify(undefined, msg(9, 7))).toEqual({ kind: 'gap', missing: [0, 7] });
  });

  it('opens a channel anew for prev 0, what lies between the mark and it remembered as missing (the sender forgot an idle channel)', () => {
    expect(classify({ seq: 4, at: 0 }, msg(8, 0))).toEqual({
      kind: 'gap',
      missing: [4, 7],
      reopened: true,
    });
    expect(classify({ seq: 4, at: 0 }, msg(5, 0)).kind).toBe('next');
    expect(classify(undefined, msg(1, 0)).kind).toBe('next');
    // Sent before the sender forgot the channel, and arrived after: applied, not a duplicate.
    const { kinds, mark } = receive([msg(8, 0), msg(6, 4)], { seq: 4, at: 0 });
    expect(kinds).toEqual(['gap', 'late']);
    expect(mark).toEqual({ seq: 8, at: 1, missing: [[6, 7]] });
  });

  it('opens a channel with no mark for prev 0 past seq 1, what lies below it remembered as missing and unproven (the receiver forgot its mark, or never had one)', () => {
    // The sender forgot its channel and opens it anew, while what it sent here before still
    // waits in a dead-letter queue, never applied: no mark here tells it from a duplicate.
    expect(classify(undefined, msg(8, 0))).toEqual({
      kind: 'gap',
      missing: [0, 7],
      reopened: true,
    });
    const { kinds, mark } = receive([msg(8, 0), msg(6, 0)]);
    expect(kinds).toEqual(['gap', 'late']);
    // The late one opened the channel too, so it says nothing of what lies below it: an earlier
    // opening's messages may. Only it leaves the gap, the rest still missing and unproven.
    expect(mark).toEqual({
      seq: 8,
      at: 1,
      missing: [
        [0, 5],
        [6, 7],
      ],
      unprovenUpTo: 7,
    });
    expect(markProves(mark, msg(7, 6))).toBe(false);
    expect(classify(mark, msg(6, 0)).kind).toBe('duplicate');
    expect(classify(mark, msg(3, 2)).kind).toBe('late');
  });

  it('keeps what a gap opened with no mark spans as unproven, until no gap reaches below it', () => {
    // No mark (forgotten, or never): seqs up to 7 may have been applied under the one forgotten.
    const { mark } = receive([msg(9, 7)]);
    expect(mark).toEqual({ seq: 9, at: 1, missing: [[0, 7]], unprovenUpTo: 7 });
    expect(markProves(mark, msg(5, 3))).toBe(false);
    expect(markProves(mark, msg(8, 7))).toBe(true);
    // A gap a mark opens is proven: nothing at or below it was applied unseen.
    expect(receive([msg(12, 11)], mark).mark).toEqual({
      seq: 12,
      at: 1,
      missing: [
        [0, 7],
        [9, 11],
      ],
      unprovenUpTo: 7,
    });
    // Filled up to 7, it is dropped: each late message's prev closes what lies below it, down to
    // seq 1 (a prev of 0 opened the channel, maybe anew, and closes nothing below it).
    expect(receive([msg(7, 4), msg(4, 0)], mark).mark).toEqual({
      seq: 9,
      at: 1,
      missing: [[0, 3]],
      unprovenUpTo: 7,
    });
    expect(receive([msg(7, 1), msg(1, 0)], mark).mark).toEqual({ seq: 9, at: 1 });
    // A gap left above it holds no unproven seq: dropped too (from its bottom, 7, up).
    const above = receive([msg(7, 1), msg(1, 0)], {
      ...mark!,
      missing: [
        [0, 7],
        [7, 8],
      ],
    }).mark;
    expect(above).toEqual({ seq: 9, at: 1, missing: [[7, 8]] });
    expect(above).not.toHaveProperty('unprovenUpTo');
    // And no mark that never had one gets it.
    expect(receive([msg(1, 0), msg(5, 3)]).mark).not.toHaveProperty('unprovenUpTo');
    expect(markProves(undefined, msg(1, 0))).toBe(false);
  });

  it('takes a message without prev (sent before channels existed) as the next one', () => {
    expect(classify({ seq: 4, at: 0 }, msg(8)).kind).toBe('next');
  });

  it('tells a late message inside a gap from a duplicate just outside it, at both ends', () => {
    const mark: SenderMark = { seq: 10, at: 0, missing: [[3, 6]] };
    expect(classify(mark, msg(3)).kind).toBe('duplicate');
    expect(classify(mark, msg(4)).kind).toBe('late');
    expect(classify(mark, msg(6)).kind).toBe('late');
    expect(classify(mark, msg(7)).kind).toBe('duplicate');
  });

  it('finds a late message in any of several gaps, not only when it is in all of them', () => {
    const mark: SenderMark = {
      seq: 20,
      at: 0,
      missing: [
        [1, 3],
        [10, 12],
      ],
    };
    expect(classify(mark, msg(2)).kind).toBe('late');
    expect(classify(mark, msg(11)).kind).toBe('late');
    expect(classify(mark, msg(5)).kind).toBe('duplicate');
  });
});

describe('markAfter', () => {
  it('moves the mark to an applied message and keeps no gap list when there is none', () => {
    expect(markAfter({ seq: 1, at: 0 }, msg(3, 1), { kind: 'next' }, 7)).toEqual({ seq: 3, at: 7 });
  });

  it('remembers a gap, and a later message still finds it', () => {
    const { kinds, mark } = receive([msg(1, 0), msg(9, 7), msg(12, 9)]);
    expect(kinds).toEqual(['next', 'gap', 'next']);
    expect(mark).toEqual({ seq: 12, at: 1, missing: [[1, 7]] });
  });

  it('closes a gap message by message, using each late message’s own prev', () => {
    // Channel: 1, 4, 7, 9. Messages 4 and 7 were lost, 9 arrived first.
    const { kinds, mark } = receive([msg(1, 0), msg(9, 7), msg(7, 4), msg(4, 1)]);
    expect(kinds).toEqual(['next', 'gap', 'late', 'late']);
    expect(mark).toEqual({ seq: 9, at: 1 });
  });

  it('keeps the part of a gap below a late message whose prev says more is missing', () => {
    const { mark } = receive([msg(1, 0), msg(9, 7), msg(7, 4)]);
    expect(mark?.missing).toEqual([[1, 4]]);
  });

  it('keeps the part of a gap above a late message that is not the gap’s last', () => {
    const start: SenderMark = { seq: 20, at: 0, missing: [[2, 10]] };
    const mark = markAfter(start, msg(5, 2), { kind: 'late' }, 1);
    expect(mark).toEqual({ seq: 20, at: 1, missing: [[5, 10]] });
  });

  it('leaves the other gaps alone when one closes', () => {
    const start: SenderMark = {
      seq: 30,
      at: 0,
      missing: [
        [1, 3],
        [10, 12],
      ],
    };
    const mark = markAfter(start, msg(12, 10), { kind: 'late' }, 1);
    expect(mark.missing).toEqual([[1, 3]]);
  });

  it('splits a gap with a late message that has no prev as if its prev were seq - 1', () => {
    const start: SenderMark = { seq: 30, at: 0, missing: [[1, 9]] };
    expect(markAfter(start, msg(5), { kind: 'late' }, 1).missing).toEqual([
      [1, 4],
      [5, 9],
    ]);
  });

  it('applies each message once whatever copies arrive around a closed gap', () => {
    const { kinds } = receive([msg(1, 0), msg(9, 7), msg(7, 1), msg(7, 1), msg(9, 7), msg(1, 0)]);
    expect(kinds).toEqual(['next', 'gap', 'late', 'duplicate', 'duplicate', 'duplicate']);
  });

  it('remembers every gap, however many', () => {
    let mark: SenderMark | undefined;
    for (let i = 0; i <= 2 * RECORD_GAPS; i++) {
      const seq = 10 * (i + 1);
      mark = markAfter(mark, msg(seq, seq - 1), classify(mark, msg(seq, seq - 1)), 1);
    }
    expect(mark?.missing).toHaveLength(2 * RECORD_GAPS + 1);
    expect(mark?.missing?.[0]).toEqual([0, 9]);
  });

  it('forgets the oldest gaps past a limit, and says which', () => {
    const missing = Array.from({ length: 5 }, (_, i): [number, number] => [i * 3, i * 3 + 1]);
    const mark: SenderMark = { seq: 1000, at: 0, missing };
    expect(forgetOldestGaps(mark, 5)).toEqual({ mark, forgotten: [] });
    expect(forgetOldestGaps(mark, 3)).toEqual({
      mark: { ...mark, missing: missing.slice(2), forgottenUpTo: 4 },
      forgotten: missing.slice(0, 2),
    });
  });

  it('takes no message where the gaps were forgotten for a copy, and keeps that through later marks', () => {
    const missing = Array.from({ length: 5 }, (_, i): [number, number] => [i * 3, i * 3 + 1]);
    const { mark } = forgetOldestGaps({ seq: 20, at: 0, missing }, 3);
    // 1 and 4 were missing, 2 and 3 applied: the mark tells none of them now.
    for (const seq of [1, 2, 3, 4]) {
      expect(classify(mark, msg(seq, seq - 1)).kind).toBe('duplicate');
      expect(inForgottenGaps(mark, msg(seq, seq - 1))).toBe(true);
    }
    // Above the last gap forgotten, the mark tells as before.
    expect(classify(mark, msg(7, 6)).kind).toBe('late');
    expect(inForgottenGaps(mark, msg(5, 4))).toBe(false);
    expect(inForgottenGaps(undefined, msg(1, 0))).toBe(false);
    // A message applied next, or the last gap filled, leaves what was forgotten forgotten.
    const next = markAfter(mark, msg(21, 20), { kind: 'next' }, 1);
    expect(next).toMatchObject({ seq: 21, forgottenUpTo: 4 });
    let filled: SenderMark = next;
    for (const seq of [7, 10, 13])
      filled = markAfter(filled, msg(seq, seq - 1), { kind: 'late' }, 1);
    expect(filled).toEqual({ seq: 21, at: 1, forgottenUpTo: 4 });
  });

  it('keeps as many gaps as fill half an item, at least one', () => {
    expect(maxGaps(400 * 1024)).toBeGreaterThan(5_000);
    expect(maxGaps(10)).toBe(1);
  });
});

describe('pruneChannels', () => {
  it('keeps channels used since `before`, forgets older ones', () => {
    const channels = {
      'box/a': { seq: 1, at: 10 },
      'box/b': { seq: 2, at: 20 },
      'box/c': { seq: 3, at: 30 },
    };
    expect(pruneChannels(channels, 20)).toEqual({
      'box/b': { seq: 2, at: 20 },
      'box/c': { seq: 3, at: 30 },
    });
    expect(pruneChannels(undefined, 20)).toEqual({});
  });

  it('returns the channels themselves when it forgets none', () => {
    const channels = { 'box/a': { seq: 1, at: 20 } };
    expect(pruneChannels(channels, 20)).toBe(channels);
    expect(pruneChannels({ ...channels, 'box/b': { seq: 2, at: 19 } }, 20)).not.toBe(channels);
  });
});
