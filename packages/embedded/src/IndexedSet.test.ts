import { describe, expect, it } from 'vitest';
import { IndexedSet } from './IndexedSet.ts';

interface Item {
  readonly name: string;
  setIndex: number;
}

const item = (name: string): Item => ({ name, setIndex: -1 });
const names = (set: IndexedSet<Item>) => set.items.map((i) => i.name).sort();

describe('IndexedSet', () => {
  it('adds once, deletes from anywhere, and knows what it holds', () => {
    const set = new IndexedSet<Item>();
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map(item) as [Item, Item, Item, Item];
    for (const x of [a, b, c, b, d]) set.add(x);
    expect(names(set)).toEqual(['a', 'b', 'c', 'd']);
    set.delete(b); // from the middle: the last item takes its place
    set.delete(b); // not there any more: nothing happens
    expect(names(set)).toEqual(['a', 'c', 'd']);
    expect([set.has(a), set.has(b), set.has(c), set.has(d)]).toEqual([true, false, true, true]);
    set.delete(d); // the last one
    set.delete(a); // the first one
    expect(names(set)).toEqual(['c']);
    expect(set.items[c.setIndex]).toBe(c);
    set.delete(c);
    expect(set.size).toBe(0);
    set.add(b);
    expect(names(set)).toEqual(['b']);
  });

  it('keeps every item at its index through any sequence of adds and deletes', () => {
    const set = new IndexedSet<Item>();
    const pool = Array.from({ length: 12 }, (_, i) => item(`i${i}`));
    const held = new Set<Item>();
    let a = 7;
    for (let step = 0; step < 2_000; step++) {
      a = (a * 1_103_515_245 + 12_345) % 2_147_483_648;
      const x = pool[a % pool.length]!;
      if ((a >> 8) % 3 === 0) {
        set.delete(x);
        held.delete(x);
      } else {
        set.add(x);
        held.add(x);
      }
      expect(set.size).toBe(held.size);
      for (const [i, y] of set.items.entries()) expect(y.setIndex).toBe(i);
      for (const y of pool) expect(set.has(y)).toBe(held.has(y));
    }
  });
});
