import { IndexedSet, type IndexedSetItem } from './IndexedSet.ts';
import type { HeapItem } from './MinHeap.ts';
import type { StoredMessage } from './StoredMessage.ts';

/** Removed slots at the front that are reclaimed once they outnumber the live messages. */
const RECLAIM_AFTER = 1_024;

/**
 * The messages of one FIFO group, in sequence order. Removing the head (the usual ack) is
 * O(1): the array keeps a start index instead of shifting.
 */
export class MessageGroup implements HeapItem, IndexedSetItem {
  readonly key: string;
  /**
   * Its messages that were ever received or released (`visibleAt` set): the only ones that can
   * hold the group in flight. Usually the few of the latest receive.
   */
  readonly touched = new IndexedSet<StoredMessage>();
  /** Its place in the {@link GroupSchedule} heap that holds it, if one does. */
  heapIndex = -1;
  /** Its place among the queue's groups with touched messages (`QueueState`), if it is one. */
  setIndex = -1;
  /** Listed among the groups to file again once the current change is applied (`QueueState`). */
  changed = false;
  #messages: (StoredMessage | undefined)[] = [];
  #start = 0;

  constructor(key: string) {
    this.key = key;
  }

  get size(): number {
    return this.#messages.length - this.#start;
  }

  /** The `i`-th message from the head. */
  at(i: number): StoredMessage | undefined {
    return this.#messages[this.#start + i];
  }

  push(message: StoredMessage): void {
    this.#messages.push(message);
  }

  /** Removes `message` if it is in the group; says whether it was. */
  remove(message: StoredMessage): boolean {
    this.touched.delete(message);
    const messages = this.#messages;
    if (messages[this.#start] === message) {
      messages[this.#start++] = undefined;
      if (this.#start >= RECLAIM_AFTER && this.#start * 2 >= messages.length) {
        this.#messages = messages.slice(this.#start);
        this.#start = 0;
      }
      return true;
    }
    const index = messages.indexOf(message, this.#start);
    if (index < 0) return false;
    messages.splice(index, 1);
    return true;
  }

  /** When the group can next be received from: the latest `visibleAt` of its messages (0: now). */
  until(): number {
    let at = 0;
    for (const m of this.touched.items) if (m.visibleAt > at) at = m.visibleAt;
    return at;
  }
}
