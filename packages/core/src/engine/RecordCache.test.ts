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
});
