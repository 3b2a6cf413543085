import type { MessageGroup } from './MessageGroup.ts';
import { MinHeap } from './MinHeap.ts';

interface Entry {
  readonly key: number;
  readonly group: MessageGroup;
  readonly ticket: number;
}

/** Stale entries tolerated beyond twice the valid ones before the heaps are compacted. */
const SLACK = 1_024;

/**
 * Which groups a receive can take from, so that it never scans the queue. Every non-empty
 * group not being received from is filed in one of two heaps:
 *
 * - `ready`: nothing of it was received or released, keyed by its head's sequence number (a
 *   receive serves groups oldest head first);
 * - `waiting`: keyed by its `until()`, the time its last message in flight becomes visible. A
 *   receive first moves the waiting groups whose time has come to `ready`.
 *
 * Entries are never removed in place: filing a group again bumps its ticket, and an entry with
 * an older ticket is dropped when it surfaces (or when the heaps are compacted).
 */
export class GroupSchedule {
  readonly #ready = new MinHeap<Entry>();
  readonly #waiting = new MinHeap<Entry>();
  #limit = SLACK;

  /** Files `group` by its current messages (an empty group is dropped). Call after any change. */
  file(group: MessageGroup): void {
    const ticket = ++group.ticket;
    const head = group.at(0);
    if (!head) return;
    const until = group.until();
    if (until === 0) this.#ready.push({ key: head.n, group, ticket });
    else this.#waiting.push({ key: until, group, ticket });
    if (this.#ready.size + this.#waiting.size > this.#limit) this.#compact();
  }

  /**
   * Takes out the group with the oldest head among those receivable at `now` (nothing of them
   * in flight), or undefined. The caller files it again once it has handed out its messages.
   */
  take(now: number): MessageGroup | undefined {
    this.#promote(now);
    for (;;) {
      const entry = this.#ready.pop();
      if (!entry) return undefined;
      const { group } = entry;
      if (entry.ticket !== group.ticket) continue;
      if (group.until() > now) {
        this.file(group); // filed ready at a later time than `now`: the clock went back
        continue;
      }
      group.ticket++;
      return group;
    }
  }

  /** `now` if a group is receivable, else when the next one will be; undefined if none. */
  nextVisibleAt(now: number): number | undefined {
    this.#promote(now);
    for (let top = this.#ready.peek(); top; top = this.#ready.peek()) {
      if (top.ticket === top.group.ticket && top.group.until() <= now) return now;
      this.#ready.pop();
      if (top.ticket === top.group.ticket) this.file(top.group);
    }
    return this.#validTop(this.#waiting)?.key;
  }

  #promote(now: number): void {
    for (let top = this.#validTop(this.#waiting); top && top.key <= now; ) {
      this.#waiting.pop();
      const { group } = top;
      const head = group.at(0);
      if (head) this.#ready.push({ key: head.n, group, ticket: ++group.ticket });
      top = this.#validTop(this.#waiting);
    }
  }

  #validTop(heap: MinHeap<Entry>): Entry | undefined {
    let top = heap.peek();
    while (top && top.ticket !== top.group.ticket) {
      heap.pop();
      top = heap.peek();
    }
    return top;
  }

  #compact(): void {
    const valid = (entry: Entry) => entry.ticket === entry.group.ticket;
    this.#ready.filter(valid);
    this.#waiting.filter(valid);
    this.#limit = 2 * (this.#ready.size + this.#waiting.size) + SLACK;
  }
}
