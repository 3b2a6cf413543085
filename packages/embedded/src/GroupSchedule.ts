import type { MessageGroup } from './MessageGroup.ts';
import { MinHeap } from './MinHeap.ts';

/**
 * Which groups a receive can take from, so that it never scans the queue. Every non-empty
 * group not being received from is filed in one of two heaps:
 *
 * - `ready`: nothing of it was received or released, keyed by its head's sequence number (a
 *   receive serves groups oldest head first);
 * - `waiting`: keyed by its `until()`, the time its last message in flight becomes visible. A
 *   receive first moves the waiting groups whose time has come to `ready`.
 *
 * A group is in at most one heap at a time: filing it again moves it.
 */
export class GroupSchedule {
  readonly #ready = new MinHeap<MessageGroup>();
  readonly #waiting = new MinHeap<MessageGroup>();

  /** Files `group` by its current messages (an empty group is dropped). Call after any change. */
  file(group: MessageGroup): void {
    this.#unfile(group);
    const head = group.at(0);
    if (!head) return;
    const until = group.until();
    if (until === 0) this.#ready.push(group, head.n);
    else this.#waiting.push(group, until);
  }

  /**
   * Takes out the group with the oldest head among those receivable at `now` (nothing of them
   * in flight), or undefined. The caller files it again once it has handed out its messages.
   */
  take(now: number): MessageGroup | undefined {
    this.#promote(now);
    for (;;) {
      const group = this.#ready.pop();
      if (!group) return undefined;
      if (group.until() <= now) return group;
      this.file(group); // filed ready at a later time than `now`: the clock went back
    }
  }

  /** `now` if a group is receivable, else when the next one will be; undefined if none. */
  nextVisibleAt(now: number): number | undefined {
    this.#promote(now);
    for (let top = this.#ready.peek(); top; top = this.#ready.peek()) {
      if (top.until() <= now) return now;
      this.file(top); // the clock went back: it waits again
    }
    return this.#waiting.peekKey();
  }

  /** Moves the waiting groups whose time has come to `ready`. */
  #promote(now: number): void {
    for (let at = this.#waiting.peekKey(); at !== undefined && at <= now; ) {
      const group = this.#waiting.pop()!;
      const head = group.at(0); // always there: an emptied group is dropped when filed
      if (head) this.#ready.push(group, head.n);
      at = this.#waiting.peekKey();
    }
  }

  #unfile(group: MessageGroup): void {
    if (this.#ready.has(group)) this.#ready.remove(group);
    else if (this.#waiting.has(group)) this.#waiting.remove(group);
  }
}
