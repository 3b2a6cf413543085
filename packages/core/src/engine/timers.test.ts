import { describe, expect, it } from 'vitest';
import { decodeEnvelope, TIMER } from '../adapter/envelope.ts';
import type { ActorRecord, Timer } from '../adapter/storedRecords.ts';
import { isVoid, stamped, timerFire } from './timers.ts';

const record = (parts: Partial<ActorRecord> = {}): ActorRecord => ({
  id: 'clock/a',
  ver: 3,
  state: null,
  inboxOffset: '0',
  marks: {},
  sentSeq: 0,
  ...parts,
});

const timer = (parts: Partial<Timer> = {}): Timer => ({
  actorId: 'clock/a',
  id: 'tick',
  gen: 'g1',
  at: 500,
  name: 'tick',
  payload: { n: 1 },
  createdAt: 0,
  ...parts,
});

describe('timers', () => {
  it('fire as a small inbox message to their actor, naming the timer and its scheduling', () => {
    const fire = timerFire(timer());
    expect(fire.group).toBe('clock/a');
    const envelope = decodeEnvelope(fire.body);
    expect(envelope).toMatchObject({
      id: fire.dedupeId,
      from: TIMER,
      seq: 0,
      to: 'clock/a',
      name: 'tick',
      payload: null,
      sentAt: 500,
      timer: { id: 'tick', gen: 'g1' },
    });
    expect(timerFire(timer({ gen: 'g2' })).dedupeId).not.toBe(fire.dedupeId);
  });

  it('are void when of another life or scheduled before the last halt', () => {
    expect(isVoid(record(), timer())).toBe(false);
    expect(isVoid(record({ life: 'L' }), timer({ life: 'L' }))).toBe(false);
    expect(isVoid(record({ life: 'L' }), timer())).toBe(true);
    expect(isVoid(record(), timer({ life: 'L' }))).toBe(true);
    expect(isVoid(record({ timerEpoch: 0 }), timer())).toBe(false);
    expect(isVoid(record({ timerEpoch: 1 }), timer())).toBe(true);
    expect(isVoid(record({ timerEpoch: 1 }), timer({ epoch: 1 }))).toBe(false);
    expect(isVoid(record(), timer({ epoch: 1 }))).toBe(true);
  });

  it("are stamped with the record's life and halts, and removals stay removals", () => {
    const scheduled = new Map<string, Timer | null>([
      ['tick', timer()],
      ['gone', null],
    ]);
    expect(stamped(record(), scheduled)).toEqual(scheduled);
    const out = stamped(record({ life: 'L', timerEpoch: 2 }), scheduled);
    expect(out.get('tick')).toEqual({ ...timer(), life: 'L', epoch: 2 });
    expect(out.get('gone')).toBeNull();
    expect(stamped(record({ timerEpoch: 0 }), scheduled).get('tick')).not.toHaveProperty('epoch');
  });
});
