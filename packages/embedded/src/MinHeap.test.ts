import { describe, expect, it } from 'vitest';
import { seededRandom } from './fixtures/seededRandom.ts';
import { MinHeap } from './MinHeap.ts';

interface Item {
  readonly name: string;
  heapIndex: number;
}

const item = (name: string): Item => ({ name, heapIndex: -1 });

/** Pops everything: the keys in the order they come out. */
function drain(heap: MinHeap<Item>, keyOf: Map<Item, number>): number[] {
  const keys: number[] = [];
  for (let top = heap.pop(); top; top = heap.pop()) keys.push(keyOf.get(top)!);
  return keys;
}

describe('MinHeap', () => {
  it('pops items smallest key first, also after removals from the middle', () => {
    const heap = new MinHeap<Item>();
    const keyOf = new Map<Item, number>();
    const keys = [5, 3, 9, 1, 7, 3, 8, 2, 6, 4, 0];
    for (const [i, key] of keys.entries()) {
      const it = item(`i${i}`);
      keyOf.set(it, key);
      heap.push(it, key);
    }
    expect(heap.peekKey()).toBe(0);
    expect(keyOf.get(heap.peek()!)).toBe(0);
    for (const [it, key] of keyOf) if (key % 2 === 0) heap.remove(it);
    expect(drain(heap, keyOf)).toEqual([1, 3, 3, 5, 7, 9]);
    expect(heap.size).toBe(0);
    expect(heap.pop()).toBeUndefined();
    expect(heap.peekKey()).toBeUndefined();
  });

  it('knows which items it holds, with two heaps sharing the items', () => {
    const a = new MinHeap<Item>();
    const b = new MinHeap<Item>();
    const [x, y, z] = [item('x'), item('y'), item('z')];
    a.push(x, 1);
    b.push(y, 1);
    expect([a.has(x), a.has(y), a.has(z), b.has(x), b.has(y), b.has(z)]).toEqual([
      true,
      false,
      false,
      false,
      true,
      false,
    ]);
    a.remove(x);
    b.push(x, 0);
    expect([a.has(x), b.has(x), a.size, b.size]).toEqual([false, true, 0, 2]);
    expect(b.pop()).toBe(x);
    expect(b.has(x)).toBe(false);
    expect(x.heapIndex).toBe(-1);
    b.remove(y);
    expect([y.heapIndex, b.size]).toEqual([-1, 0]);
  });

  it('answers as a sorted list would under random pushes, pops and removals', () => {
    for (let seed = 1; seed <= 30; seed++) {
      const rand = seededRandom(seed);
      const heap = new MinHeap<Item>();
      const held = new Map<Item, number>(); // what the heap should hold, with the keys
      for (let step = 0; step < 400; step++) {
        const op = rand(10);
        const smallest = Math.min(...held.values());
        if (op < 5) {
          const it = item(`s${step}`);
          const key = rand(50);
          held.set(it, key);
          heap.push(it, key);
        } else if (op < 7) {
          const top = heap.pop();
          expect(top && held.get(top), `seed ${seed} step ${step}`).toBe(
            held.size > 0 ? smallest : undefined,
          );
          if (top) held.delete(top);
        } else if (held.size > 0) {
          const it = [...held.keys()][rand(held.size)]!;
          heap.remove(it);
          held.delete(it);
        }
        expect(heap.size, `seed ${seed} step ${step}`).toBe(held.size);
        expect(heap.peekKey(), `seed ${seed} step ${step}`).toBe(
          held.size > 0 ? Math.min(...held.values()) : undefined,
        );
        for (const it of held.keys()) expect(heap.has(it)).toBe(true);
      }
      expect(drain(heap, held)).toEqual([...held.values()].sort((p, q) => p - q));
    }
  });
});
