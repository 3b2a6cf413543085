import { describe, expect, it } from 'vitest';
import type { Envelope } from '../adapter/envelope.ts';
import type { DeadLetter } from '../adapter/storedRecords.ts';
import { answeredSender, keptTooOldToTell, redriveNeedsForce } from './redriveNeedsForce.ts';

/** A letter of `envelope`'s message, kept for its failures unless `extra` says otherwise. */
const letter = (envelope: Partial<Envelope>, extra: Partial<DeadLetter> = {}): DeadLetter => ({
  actorId: 'log/audit',
  messageId: 'm-1',
  envelope: {
    id: 'm-1',
    from: 'order/o-1',
    seq: 7,
    to: 'log/audit',
    name: 'write',
    payload: null,
    sentAt: 0,
    ...envelope,
  },
  redrivable: true,
  error: { code: 'DEAD_LETTERED', message: 'failed', details: {} },
  attempts: 3,
  at: 1,
  ...extra,
});

describe('which letters a plain redrive refuses', () => {
  it('takes a plain send kept for its failures', () => {
    const plain = letter({});
    expect([answeredSender(plain), keptTooOldToTell(plain), redriveNeedsForce(plain)]).toEqual([
      undefined,
      false,
      false,
    ]);
  });

  it("refuses an actor's ask and a client's ask, whose senders were answered", () => {
    const asked = letter({ ask: 'a-1' });
    const awaited = letter({ from: 'ingress', awaited: true });
    expect(answeredSender(asked)).toMatch(/^its asker order\/o-1: /);
    expect(answeredSender(awaited)).toMatch(/^its client's ask: /);
    expect([redriveNeedsForce(asked), redriveNeedsForce(awaited)]).toEqual([true, true]);
  });

  it('refuses a letter kept as too old to tell, and says nobody was answered of it', () => {
    const unmarked = letter({ ask: 'a-1' }, { unmarked: true });
    expect([answeredSender(unmarked), keptTooOldToTell(unmarked)]).toEqual([undefined, true]);
    expect(redriveNeedsForce(unmarked)).toBe(true);
  });

  it("refuses an ended life's letter that an earlier Baton kept without unmarked", () => {
    const ended = letter({ lifeEnded: true });
    expect([keptTooOldToTell(ended), redriveNeedsForce(ended)]).toEqual([true, true]);
  });
});
