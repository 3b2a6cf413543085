import type { OutboxItem } from '@baton/core/adapter';

/** Where an inbox message is: `<generation>:<seq>`, since a replaced queue numbers from 1 again. */
export function place(generation: number, seq: string): string {
  return `${generation}:${seq}`;
}

/**
 * Which inbox messages hold each committed outbox item (until one of them is deleted from the
 * queue, its redelivery drains the item), and where those messages moved since: what the
 * orphan check needs to tell whether anything but the sweeper would ever send an item.
 */
export class OutboxHolders {
  /** `actorId#seq` of each committed outbox item → places of the inbox messages holding it. */
  readonly #holders = new Map<string, readonly string[]>();
  /**
   * Where inbox messages moved (a dead-letter redrive, a replaced queue): place to new place.
   * Holders are kept as they were received and followed through it, since a stale worker may
   * commit for messages that have moved meanwhile.
   */
  readonly #movedTo = new Map<string, string>();
  /** `actorId#seq` of the items a worker left to the sweeper ({@link leftToSweeper}). */
  readonly #left = new Set<string>();

  /** A commit put `items` in its outbox while its process held the inbox messages at `places`. */
  held(items: readonly OutboxItem[], places: readonly string[]): void {
    for (const item of items) {
      const key = `${item.actorId}#${item.seq}`;
      this.#holders.set(key, places);
      this.#left.delete(key);
    }
  }

  /**
   * A worker acked the inbox messages holding `actorId`'s items after their drain failed: they
   * are left to the actor's next turn or the sweeper, by design, and no longer orphans.
   */
  leftToSweeper(actorId: string): void {
    for (const key of this.#holders.keys()) {
      if (key.startsWith(`${actorId}#`)) this.#left.add(key);
    }
  }

  /** The inbox message at `from` is at `to` now. */
  moved(from: string, to: string): void {
    this.#movedTo.set(from, to);
  }

  /**
   * The sweeper read `items` of `actorId`'s outbox while the inbox messages at `present` were
   * in the queue (or its dead-letter queue): a violation for each item none of whose holders is
   * among them — an orphan, that no worker will ever drain.
   */
  orphans(actorId: string, items: readonly OutboxItem[], present: ReadonlySet<string>): string[] {
    const violations: string[] = [];
    for (const item of items) {
      const key = `${item.actorId}#${item.seq}`;
      if (this.#left.has(key)) continue;
      const holders = this.#holders.get(key) ?? [];
      if (!holders.some((at) => present.has(this.#whereNow(at)))) {
        violations.push(
          `orphaned outbox: the sweeper found item ${item.seq} of ${actorId}, whose inbox messages (queue seqs ${holders.join(', ') || 'unknown'}) were all deleted from the queue: no worker will ever drain it (was the inbox acked before the drain?)`,
        );
      }
    }
    return violations;
  }

  /** Where an inbox message is now, after every move. */
  #whereNow(at: string): string {
    let now = at;
    for (let next = this.#movedTo.get(now); next !== undefined; next = this.#movedTo.get(now)) {
      now = next;
    }
    return now;
  }
}
