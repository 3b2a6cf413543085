import { describe, expect, it } from 'vitest';
import { MinHeap } from './MinHeap.ts';

describe('MinHeap', () => {
  it('pops entries smallest key first, also after filtering', () => {
    const heap = new MinHeap<{ key: number }>();
    const keys = [5, 3, 9, 1, 7, 3, 8, 2, 6, 4, 0];
    for (const key of keys) heap.push({ key });
    expect(heap.peek()?.key).toBe(0);
    heap.filter(({ key }) => key % 2 === 1);
    const popped: number[] = [];
    for (let e = heap.pop(); e; e = heap.pop()) popped.push(e.key);
    expect(popped).toEqual([1, 3, 3, 5, 7, 9]);
    expect(heap.size).toBe(0);
    expect(heap.pop()).toBeUndefined();
  });
});
