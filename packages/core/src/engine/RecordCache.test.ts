import { describe, expect, it } from 'vitest';
import type { ActorRecord } from '../adapter/ports.ts';
import { RecordCache } from './RecordCache.ts';

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
});
