import { describe, expect, it } from 'vitest';
import { jsonSize } from '../adapter/conflicts.ts';
import type { ActorRecord, Timer } from '../adapter/storedRecords.ts';
import { MAX_KNOWN_TIMERS, RecordCache } from './RecordCache.ts';

const record = (id: string, ver = 1): ActorRecord => ({
  id,
  ver,
  state: null,
  inboxOffset: '0',
  marks: {},
  sentSeq: 0,
});

describe('RecordCache', () => {
  it('keeps the latest record of each actor', () => {
    const cache = new RecordCache(2);
    cache.set(record('a/1', 1));
    cache.set(record('a/1', 2));
    cache.set(record('b/1'));
    expect(cache.get('a/1')?.ver).toBe(2);
    expect(cache.get('b/1')?.ver).toBe(1);
    expect(cache.get('c/1')).toBeUndefined();
  });

  it('forgets the least recently used actor past its capacity: a read counts as a use', () => {
    const cache = new RecordCache(2);
    cache.set(record('a/1'));
    cache.set(record('b/1'));
    cache.get('a/1');
    cache.set(record('c/1'));
    expect(cache.get('b/1')).toBeUndefined();
    expect(cache.get('a/1')).toBeDefined();
    cache.set(record('a/1', 2)); // a set counts as a use too
    cache.set(record('d/1'));
    expect(cache.get('c/1')).toBeUndefined();
    expect(cache.get('a/1')?.ver).toBe(2);
    expect(cache.get('d/1')).toBeDefined();
  });

  it('keeps nothing with capacity 0, and forgets on delete and clear', () => {
    const none = new RecordCache(0);
    none.set(record('a/1'));
    expect(none.get('a/1')).toBeUndefined();
    const cache = new RecordCache(3);
    cache.set(record('a/1'));
    cache.set(record('b/1'));
    cache.delete('a/1');
    expect(cache.get('a/1')).toBeUndefined();
    expect(cache.get('b/1')).toBeDefined();
    cache.clear();
    expect(cache.get('b/1')).toBeUndefined();
  });

  it('forgets the least recently used records past its budget of JSON bytes, keeping the latest', () => {
    const sized = (id: string, bytes: number): ActorRecord => {
      const base = record(id);
      // A state string of the length that brings the record's JSON to `bytes`.
      const pad = bytes - jsonSize({ ...base, state: '' });
      return { ...base, state: 'x'.repeat(pad) };
    };
    const cache = new RecordCache(100, 3_000);
    cache.set(sized('a/1', 1_000));
    cache.set(sized('b/1', 1_000));
    cache.get('a/1');
    expect(cache.bytes).toBe(2_000);
    cache.set(sized('c/1', 1_500));
    // b went (least recently used); a and c stay, within the budget.
    expect([cache.get('a/1'), cache.get('b/1'), cache.get('c/1')].map(Boolean)).toEqual([
      true,
      false,
      true,
    ]);
    expect(cache.bytes).toBe(2_500);
    // A record over the whole budget is kept alone: the others go.
    cache.set(sized('d/1', 5_000));
    expect([cache.get('a/1'), cache.get('c/1'), cache.get('d/1')].map(Boolean)).toEqual([
      false,
      false,
      true,
    ]);
    expect(cache.bytes).toBe(5_000);
    // A new version replaces the old one's bytes; a commit's measured size is taken as given.
    cache.committed(sized('d/1', 500), sized('d/1', 5_000), undefined, 500);
    expect(cache.bytes).toBe(500);
    cache.stale('d/1', undefined);
    expect(cache.bytes).toBe(0);
    // A budget met exactly keeps both records; the known timers count too.
    const exact = new RecordCache(100, 3_000);
    exact.set(sized('a/1', 1_000));
    exact.set(sized('b/1', 2_000));
    expect(exact.get('a/1')).toBeDefined();
    // Evicting down to the budget exactly stops there.
    const down = new RecordCache(100, 3_000);
    for (const [id, bytes] of [
      ['x/1', 1_000],
      ['y/1', 1_000],
      ['z/1', 2_000],
    ] as const) {
      down.set(sized(id, bytes));
    }
    expect([down.get('x/1'), down.get('y/1')].map(Boolean)).toEqual([false, true]);
    const timer: Timer = {
      actorId: 'a/1',
      id: 't',
      gen: 'g',
      at: 1,
      name: 'n',
      payload: null,
      createdAt: 0,
    };
    exact.committed(sized('a/1', 1_000), sized('a/1', 1_000), { put: [timer], remove: [] }, 1_000);
    // Its timer takes a's entry past the budget: b, least recently used, goes.
    expect(exact.get('b/1')).toBeUndefined();
    expect(exact.bytes).toBe(1_000 + jsonSize(timer));
    // A budget of 0 keeps nothing, as a capacity of 0 does.
    const none = new RecordCache(100, 0);
    none.set(sized('a/1', 1_000));
    expect(none.get('a/1')).toBeUndefined();
  });

  it('reads the store instead once a commit found the entry stale, until a read finds it was current', () => {
    const cache = new RecordCache(3);
    cache.set(record('a/1', 1));
    expect(cache.trusted('a/1')?.ver).toBe(1);
    // Another worker committed ver 2: the conflict returns it, for the redo.
    cache.stale('a/1', record('a/1', 2));
    expect(cache.get('a/1')?.ver).toBe(2);
    expect(cache.trusted('a/1')).toBeUndefined();
    // A commit here keeps the mark; a read that finds ver 3 (another worker again) keeps it too.
    cache.set(record('a/1', 3));
    expect(cache.trusted('a/1')).toBeUndefined();
    cache.read(record('a/1', 4));
    expect(cache.trusted('a/1')).toBeUndefined();
    // A read that finds what the entry held: nobody else committed since; trusted again.
    cache.read(record('a/1', 4));
    expect(cache.trusted('a/1')?.ver).toBe(4);
    // Another life at the same version is no match.
    cache.stale('a/1', record('a/1', 4));
    cache.read({ ...record('a/1', 4), life: 'other' });
    expect(cache.trusted('a/1')).toBeUndefined();
    // A conflict with no record returned forgets the entry.
    cache.stale('a/1', undefined);
    expect(cache.get('a/1')).toBeUndefined();
  });

  describe('timers known without a read', () => {
    const timer = (id: string, gen = `g-${id}`): Timer => ({
      actorId: 'a/1',
      id,
      gen,
      at: 1_000,
      name: 'ring',
      payload: null,
      createdAt: 0,
    });
    const known = (cache: RecordCache, at: ActorRecord, id: string) =>
      cache.knownTimer(at.id, at.ver, at.life, id);

    it('knows the timers its commits put, through the versions they follow each other by', () => {
      const cache = new RecordCache(3);
      const v1 = record('a/1', 1);
      const v2 = record('a/1', 2);
      const v3 = record('a/1', 3);
      cache.set(v1);
      cache.committed(v2, v1, { put: [timer('x'), timer('y')], remove: [] });
      expect(known(cache, v2, 'x')?.gen).toBe('g-x');
      cache.committed(v3, v2, { put: [timer('x', 'again')], remove: ['y'] });
      expect(known(cache, v3, 'x')?.gen).toBe('again');
      expect(known(cache, v3, 'y')).toBeUndefined();
      // A commit that touches no timer keeps what is known.
      const v4 = record('a/1', 4);
      cache.committed(v4, v3, undefined);
      expect(known(cache, v4, 'x')?.gen).toBe('again');
      // Asked at another version (a turn on an older record), it knows nothing.
      expect(known(cache, v3, 'x')).toBeUndefined();
    });

    it('knows only what a commit put when it did not follow the version the entry held', () => {
      const cache = new RecordCache(3);
      const v1 = record('a/1', 1);
      cache.set(v1);
      cache.committed(record('a/1', 2), v1, { put: [timer('x')], remove: [] });
      // Another worker committed ver 3; this one's commit of ver 4 built on it.
      const v4 = record('a/1', 4);
      cache.committed(v4, record('a/1', 3), { put: [timer('z')], remove: [] });
      expect(known(cache, v4, 'x')).toBeUndefined();
      expect(known(cache, v4, 'z')?.gen).toBe('g-z');
      // Nor across lives at the same version.
      const otherLife = { ...record('a/1', 5), life: 'second' };
      cache.committed(otherLife, { ...v4, life: 'first' }, undefined);
      expect(known(cache, otherLife, 'z')).toBeUndefined();
      cache.committed({ ...otherLife, ver: 6 }, otherLife, { put: [timer('w')], remove: [] });
      expect(known(cache, { ...otherLife, ver: 6 }, 'w')?.gen).toBe('g-w');
      expect(known(cache, { ...otherLife, ver: 6, life: 'first' }, 'w')).toBeUndefined();
    });

    it('forgets them on a record it did not commit: read at another version, set, or stale', () => {
      const cache = new RecordCache(3);
      const v1 = record('a/1', 1);
      const v2 = record('a/1', 2);
      cache.set(v1);
      cache.committed(v2, v1, { put: [timer('x')], remove: [] });
      // A read of the same version keeps them: nobody committed since.
      cache.read(record('a/1', 2));
      expect(known(cache, v2, 'x')).toBeDefined();
      cache.read(record('a/1', 3));
      expect(known(cache, record('a/1', 3), 'x')).toBeUndefined();

      cache.committed(record('a/1', 4), record('a/1', 3), { put: [timer('x')], remove: [] });
      cache.set(record('a/1', 4));
      expect(known(cache, record('a/1', 4), 'x')).toBeUndefined();

      cache.committed(record('a/1', 5), record('a/1', 4), { put: [timer('x')], remove: [] });
      cache.stale('a/1', record('a/1', 5));
      expect(known(cache, record('a/1', 5), 'x')).toBeUndefined();
    });

    it('leaves out a dead-lettered timer, and keeps the latest puts past the cap', () => {
      const cache = new RecordCache(3);
      const v1 = record('a/1', 1);
      const v2 = record('a/1', 2);
      const kept: Timer = { ...timer('dead'), deadLettered: true };
      const many = Array.from({ length: MAX_KNOWN_TIMERS + 2 }, (_, i) => timer(`t${i}`));
      cache.set(v1);
      cache.committed(v2, v1, { put: [timer('live'), kept], remove: [] });
      expect(known(cache, v2, 'live')).toBeDefined();
      expect(known(cache, v2, 'dead')).toBeUndefined();
      cache.committed(v2, v1, { put: many, remove: [] });
      expect(known(cache, v2, 't0')).toBeUndefined();
      expect(known(cache, v2, 't1')).toBeUndefined();
      expect(known(cache, v2, 't2')).toBeDefined();
      expect(known(cache, v2, `t${MAX_KNOWN_TIMERS + 1}`)).toBeDefined();
    });
  });
});
