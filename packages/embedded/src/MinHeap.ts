/** Something a {@link MinHeap} holds: the heap keeps its position in `heapIndex`. */
export interface HeapItem {
  /** Its index in the heap that holds it; -1 when none does. Start it at -1. */
  heapIndex: number;
}

/**
 * A binary min-heap of items by a numeric key (ties in no particular order). Each item knows
 * its place (`heapIndex`), so it can be removed or re-keyed in O(log size) without a search, and
 * an item is in a heap at most once: nothing stale is left behind. Keys and items are kept in
 * two parallel arrays, so that pushing allocates nothing.
 */
export class MinHeap<T extends HeapItem> {
  readonly #keys: number[] = [];
  readonly #items: T[] = [];

  get size(): number {
    return this.#items.length;
  }

  /** Whether `item` is in this heap. */
  has(item: T): boolean {
    const i = item.heapIndex;
    return i >= 0 && this.#items[i] === item;
  }

  /** The item with the smallest key, or undefined when empty. */
  peek(): T | undefined {
    return this.#items[0];
  }

  /** The smallest key, or undefined when empty. */
  peekKey(): number | undefined {
    return this.#keys[0];
  }

  /** Adds `item`, which must be in no heap, with `key`. */
  push(item: T, key: number): void {
    this.#keys.push(key);
    this.#items.push(item);
    this.#siftUp(item, key, this.#items.length - 1);
  }

  pop(): T | undefined {
    const top = this.#items[0];
    if (top !== undefined) this.remove(top);
    return top;
  }

  /** Takes out `item`, which must be in this heap. */
  remove(item: T): void {
    const keys = this.#keys;
    const items = this.#items;
    const i = item.heapIndex;
    const lastKey = keys.pop()!;
    const last = items.pop()!;
    item.heapIndex = -1;
    if (last === item) return;
    // The last item fills the hole, then moves up or down to where its key belongs.
    if (i > 0 && keys[(i - 1) >> 1]! > lastKey) this.#siftUp(last, lastKey, i);
    else this.#siftDown(last, lastKey, i);
  }

  #siftUp(item: T, key: number, from: number): void {
    const keys = this.#keys;
    const items = this.#items;
    let i = from;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (keys[parent]! <= key) break;
      this.#place(items[parent]!, keys[parent]!, i);
      i = parent;
    }
    this.#place(item, key, i);
  }

  #siftDown(item: T, key: number, from: number): void {
    const keys = this.#keys;
    const n = keys.length;
    let i = from;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && keys[child + 1]! < keys[child]!) child++;
      if (keys[child]! >= key) break;
      this.#place(this.#items[child]!, keys[child]!, i);
      i = child;
    }
    this.#place(item, key, i);
  }

  #place(item: T, key: number, i: number): void {
    this.#keys[i] = key;
    this.#items[i] = item;
    item.heapIndex = i;
  }
}
