/** Slots at the front (or stale items) tolerated before the array is reclaimed. */
const RECLAIM_AFTER = 1_024;

/**
 * Items in the order they were added, each added at a time no earlier than the one before it
 * (its `timeOf`), so that those added at or before a cutoff are all at the front: finding them
 * costs their number, not the number of items. An item removed elsewhere (`isLive` false) is
 * not looked for: it is skipped once it reaches the front, and the array is compacted once it
 * holds more than twice the live items (plus {@link RECLAIM_AFTER}), so that removed items are
 * not held for long.
 *
 * Should a clock go back, an item added at an earlier time than the one before it is found only
 * once that one is: later than its own time, never earlier.
 *
 * @example
 * const order = new ExpiryOrder<Msg>((m) => m.sentAt, (m) => byId.get(m.id) === m);
 * order.push(message, byId.size);
 * for (const m of order.addedBy(now - retentionMs)) drop(m);
 */
export class ExpiryOrder<T> {
  readonly #timeOf: (item: T) => number;
  readonly #isLive: (item: T) => boolean;
  #items: (T | undefined)[] = [];
  #start = 0;

  constructor(timeOf: (item: T) => number, isLive: (item: T) => boolean) {
    this.#timeOf = timeOf;
    this.#isLive = isLive;
  }

  /** Items held, removed ones not yet dropped included (for tests). */
  get held(): number {
    return this.#items.length - this.#start;
  }

  /** Adds `item` last; `live` is how many items are live now (with it): it bounds the array. */
  push(item: T, live: number): void {
    this.#items.push(item);
    if (this.held > 2 * live + RECLAIM_AFTER) {
      this.#items = this.#items.slice(this.#start).filter((m) => this.#isLive(m!));
      this.#start = 0;
    }
  }

  /** The time of the oldest live item, or undefined; removed items at the front go for good. */
  oldest(): number | undefined {
    const items = this.#items;
    while (this.#start < items.length && !this.#isLive(items[this.#start]!)) {
      items[this.#start++] = undefined;
    }
    if (this.#start >= RECLAIM_AFTER && this.#start * 2 >= items.length) {
      this.#items = items.slice(this.#start);
      this.#start = 0;
    }
    const head = this.#items[this.#start];
    return head === undefined ? undefined : this.#timeOf(head);
  }

  /**
   * The live items added at or before `cutoff`, oldest first. They stay until they are removed
   * (then skipped); removed items at the front are dropped on the way.
   */
  addedBy(cutoff: number): T[] {
    const at = this.oldest();
    if (at === undefined || at > cutoff) return [];
    const found: T[] = [];
    for (let i = this.#start; i < this.#items.length; i++) {
      const item = this.#items[i]!;
      if (!this.#isLive(item)) continue;
      if (this.#timeOf(item) > cutoff) break;
      found.push(item);
    }
    return found;
  }
}
