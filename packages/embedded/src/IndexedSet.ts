/** Something an {@link IndexedSet} holds: the set keeps the item's place in it here. */
export interface IndexedSetItem {
  /** Its index in the set that holds it; -1 when none does. Start it at -1. */
  setIndex: number;
}

/**
 * A set of items that each know their place in it (`setIndex`), so that add, delete and has
 * are O(1) with no hashing. Unlike a `Set`, whose table is reallocated as it empties and fills
 * again (the usual life of the messages in flight, at every receive and ack), it keeps its
 * array. An item can be in one such set at a time. Iteration order is unspecified.
 */
export class IndexedSet<T extends IndexedSetItem> {
  readonly #items: T[] = [];

  get size(): number {
    return this.#items.length;
  }

  /** The items, in no particular order (read only; changes with the set). */
  get items(): readonly T[] {
    return this.#items;
  }

  has(item: T): boolean {
    return item.setIndex >= 0;
  }

  add(item: T): void {
    if (item.setIndex >= 0) return;
    item.setIndex = this.#items.length;
    this.#items.push(item);
  }

  /** Takes out `item` if it is in the set: the last item takes its place. */
  delete(item: T): void {
    const i = item.setIndex;
    if (i < 0) return;
    const last = this.#items.pop()!;
    if (last !== item) {
      this.#items[i] = last;
      last.setIndex = i;
    }
    item.setIndex = -1;
  }
}
