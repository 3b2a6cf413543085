/** A binary min-heap of entries ordered by a numeric `key` (ties in no particular order). */
export class MinHeap<T extends { readonly key: number }> {
  #items: T[] = [];

  get size(): number {
    return this.#items.length;
  }

  peek(): T | undefined {
    return this.#items[0];
  }

  push(item: T): void {
    const items = this.#items;
    items.push(item);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (items[parent]!.key <= item.key) break;
      items[i] = items[parent]!;
      i = parent;
    }
    items[i] = item;
  }

  pop(): T | undefined {
    const items = this.#items;
    const top = items[0];
    const last = items.pop();
    if (items.length > 0 && last !== undefined) this.#siftDown(last, 0);
    return top;
  }

  /** Keeps only the entries `keep` accepts, in O(size). */
  filter(keep: (item: T) => boolean): void {
    this.#items = this.#items.filter(keep);
    for (let i = (this.#items.length >> 1) - 1; i >= 0; i--) this.#siftDown(this.#items[i]!, i);
  }

  #siftDown(item: T, from: number): void {
    const items = this.#items;
    const n = items.length;
    let i = from;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && items[child + 1]!.key < items[child]!.key) child++;
      if (items[child]!.key >= item.key) break;
      items[i] = items[child]!;
      i = child;
    }
    items[i] = item;
  }
}
