import { ErrorCode } from '@baton/core';
import type { DeadLetter, PagedOutcome, Timer } from '@baton/core/adapter';
import { describe, expect, it } from 'vitest';
import { actorHistory } from './actorHistory.ts';

const outcome = (key: string, sentAt: number, ok: boolean): PagedOutcome => ({
  key: `ingress:${JSON.stringify(['note/a', key])}`,
  actorId: 'note/a',
  sentAt,
  expiresAt: sentAt + 1000,
  outcome: ok
    ? { ok: true, value: key.length }
    : { ok: false, error: { code: ErrorCode.REJECTED, message: 'no', details: {} } },
});

const letter = (at: number, parked?: number): DeadLetter => ({
  actorId: 'note/a',
  messageId: `m${at}`,
  envelope: { name: 'add' } as DeadLetter['envelope'],
  redrivable: true,
  error: {
    code: ErrorCode.DEAD_LETTERED,
    message: 'kept failing',
    details: { cause: { code: 'INTERNAL', message: 'boom' } },
  },
  attempts: 3,
  at,
  ...(parked === undefined ? {} : { parked }),
});

const timer = { id: 't', gen: '1', name: 'ring', at: 9_000, createdAt: 40 } as Timer;

describe('actorHistory', () => {
  it('merges outcomes, dead letters, parked messages, timers and held sends, newest first', () => {
    const history = actorHistory({
      outcomes: [outcome('k1', 10, true), outcome('k22', 50, false)],
      deadLetters: [letter(30), letter(60, 1)],
      timers: [timer],
      sends: [
        { to: 'note/b', name: 'add', sentAt: 20 },
        { to: 'note/c', name: 'add', sentAt: 21, delivered: true },
        { to: 'note/d', name: 'add', sentAt: 22, delivered: false },
      ],
    });
    expect(history.map((h) => [h.at, h.kind, h.message, h.result, h.ok])).toEqual([
      [60, 'parked', 'add', 'waits as #1 until the actor is resumed', true],
      [50, 'outcome', 'k22', 'REJECTED: no', false],
      [40, 'timer set', 'ring', `due ${new Date(9_000).toISOString()}`, true],
      [30, 'dead letter', 'add', 'INTERNAL: boom (after 3 attempt(s))', false],
      [22, 'sent', 'add', 'to note/d, not delivered yet', true],
      [21, 'sent', 'add', 'to note/c, delivered (a sweep retires it)', true],
      [20, 'sent', 'add', 'to note/b, held until retired (drained or not)', true],
      [10, 'outcome', 'k1', 'ok 2', true],
    ]);
  });

  it('keeps only the newest entries', () => {
    const outcomes = Array.from({ length: 80 }, (_, i) => outcome(`k${i}`, i, true));
    const history = actorHistory({ outcomes, deadLetters: [], timers: [], sends: [] }, 5);
    expect(history.map((h) => h.at)).toEqual([79, 78, 77, 76, 75]);
    expect(actorHistory({ outcomes, deadLetters: [], timers: [], sends: [] })).toHaveLength(50);
  });
});
