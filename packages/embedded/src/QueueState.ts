import { ExpiryOrder } from './ExpiryOrder.ts';
import { GroupSchedule } from './GroupSchedule.ts';
import { IndexedSet } from './IndexedSet.ts';
import type { JournalEntry } from './Journal.ts';
import { MessageGroup } from './MessageGroup.ts';
import { hasLive, type PickLimits, pickMessages } from './pickMessages.ts';
import { StoredMessage } from './StoredMessage.ts';

/**
 * A message moved to the dead-letter queue after too many receives. It is kept for the queue's
 * retention from its move (`deadAt`), as an SQS FIFO dead-letter queue keeps it.
 */
export interface DeadLetter {
  /** The sequence number it had in the queue. */
  readonly seq: string;
  readonly group: string;
  readonly dedupeId: string;
  readonly body: string;
  readonly sentAt: number;
  readonly receiveCount: number;
  /** When it was moved (epoch ms). */
  readonly deadAt: number;
}

interface Sent {
  readonly n: number;
  readonly group: string;
  readonly dedupeId: string;
  readonly body: string;
}

export interface Letter extends Sent {
  readonly sentAt: number;
  readonly receiveCount: number;
  readonly deadAt: number;
}

/** The queue's journal entries; `q` is the queue's name. */
export type QueueEntry =
  | {
      readonly t: 'queue.send';
      readonly q: string;
      readonly at: number;
      readonly msgs: Sent[];
      /** `false` in snapshots: the dedupe ids come from `queue.meta` instead. */
      readonly dedupe?: false;
    }
  | { readonly t: 'queue.ack'; readonly q: string; readonly seqs: number[] }
  /** Messages and dead letters past the queue's retention, dropped as SQS drops them. */
  | { readonly t: 'queue.expire'; readonly q: string; readonly seqs: number[] }
  | { readonly t: 'queue.dead'; readonly q: string; readonly letters: Letter[] }
  | {
      readonly t: 'queue.redrive';
      readonly q: string;
      readonly at: number;
      readonly moves: [from: number, to: number][];
    }
  | {
      readonly t: 'queue.meta';
      readonly q: string;
      readonly lastSeq: number;
      readonly dedupe: [id: string, at: number][];
    };

/** What is past the queue's retention (see {@link QueueState.expired}). */
export interface Expired {
  /** Messages sent (or redriven) at or before the cutoff, received or not. */
  readonly messages: StoredMessage[];
  /** Dead letters moved to the dead-letter queue at or before the cutoff. */
  readonly letters: Letter[];
}

/** What a receive takes from the queue (see {@link QueueState.plan}). */
export interface ReceivePlan {
  readonly picks: StoredMessage[];
  readonly dead: StoredMessage[];
  /** Messages past the queue's retention: dropped, as SQS drops them. */
  readonly expired: StoredMessage[];
  /** The groups taken out of the schedule: give them back with {@link QueueState.refile}. */
  readonly taken: readonly MessageGroup[];
}

/**
 * The durable part of a queue: its messages in groups, the dead letters, the dedupe ids and the
 * sequence counter, changed only by applying {@link QueueEntry}s (live or replayed). It also
 * keeps the volatile {@link GroupSchedule}, so that a receive costs the messages it returns,
 * not the depth of the queue or its number of groups.
 */
export class QueueState {
  /** Messages per group, in sequence order. A group with no messages is removed. */
  readonly groups = new Map<string, MessageGroup>();
  readonly bySeq = new Map<number, StoredMessage>();
  readonly dead = new Map<number, Letter>();
  /** Dedupe id → time of the accepted send, oldest first. */
  readonly dedupe = new Map<string, number>();
  lastSeq = 0;
  readonly #schedule = new GroupSchedule();
  /** The messages by send time (a redriven one by its redrive): the oldest expire first. */
  readonly #bySent = new ExpiryOrder<StoredMessage>(
    (m) => m.sentAt,
    (m) => !m.removed,
  );
  /** The dead letters by the time of their move: the oldest expire first. */
  readonly #byDeath = new ExpiryOrder<Letter>(
    (letter) => letter.deadAt,
    (letter) => this.dead.get(letter.n) === letter,
  );
  /** Groups with a received or released message: the only ones that can be in flight. */
  readonly #touched = new IndexedSet<MessageGroup>();
  /** Groups changed by the entry being applied, filed again once it is; each flags `changed`. */
  readonly #changed: MessageGroup[] = [];

  apply(entry: QueueEntry): void {
    switch (entry.t) {
      case 'queue.send':
        for (const sent of entry.msgs) this.#add(sent, entry.at, entry.dedupe !== false);
        break;
      case 'queue.ack':
        for (const n of entry.seqs) this.#remove(n);
        break;
      case 'queue.expire':
        for (const n of entry.seqs) {
          this.#remove(n);
          this.dead.delete(n);
        }
        break;
      case 'queue.dead':
        for (const letter of entry.letters) {
          this.#remove(letter.n);
          this.dead.set(letter.n, letter);
          this.#byDeath.push(letter, this.dead.size);
        }
        break;
      case 'queue.redrive':
        for (const [from, to] of entry.moves) {
          const letter = this.dead.get(from);
          if (!letter) continue;
          this.dead.delete(from);
          this.#add(
            { n: to, group: letter.group, dedupeId: letter.dedupeId, body: letter.body },
            entry.at,
            false,
          );
        }
        break;
      case 'queue.meta':
        this.lastSeq = Math.max(this.lastSeq, entry.lastSeq);
        for (const [id, at] of entry.dedupe) this.#remember(id, at);
        break;
    }
    this.#fileChanged();
  }

  /**
   * Plans a receive at `now`: up to `max` messages from groups with nothing in flight, oldest
   * head first, round-robin, in order within a group; messages already received `maxReceives`
   * times come back as `dead` instead, and those sent at or before `sentBy` (past the queue's
   * retention) as `expired`. The groups looked at are taken out of the schedule and must be given
   * back with {@link refile} once the picks are marked (also on failure).
   */
  plan(now: number, max: number, limits: PickLimits): ReceivePlan {
    // The first round-robin pass takes one message from each group, so `max` groups with a live
    // message are all a receive can reach; all-dead groups before them are taken too.
    const taken: MessageGroup[] = [];
    for (let live = 0; live < max; ) {
      const group = this.#schedule.take(now);
      if (!group) break;
      taken.push(group);
      if (hasLive(group, limits)) live++;
    }
    const plan: ReceivePlan = { picks: [], dead: [], expired: [], taken };
    pickMessages(taken, max, limits, plan);
    return plan;
  }

  /**
   * The messages sent, and the dead letters moved, at or before `cutoff` (past the queue's
   * retention), oldest first; undefined when there are none. In O(their number), not the
   * queue's. They stay until an entry removes them (`queue.expire`).
   */
  expired(cutoff: number): Expired | undefined {
    const message = this.#bySent.oldest();
    const letter = this.#byDeath.oldest();
    const due = (at: number | undefined) => at !== undefined && at <= cutoff;
    if (!due(message) && !due(letter)) return undefined;
    return { messages: this.#bySent.addedBy(cutoff), letters: this.#byDeath.addedBy(cutoff) };
  }

  /** Sets when `messages` (all in the queue) become visible again, e.g. on release. */
  setVisibleAt(messages: Iterable<StoredMessage>, at: number): void {
    this.markVisibleAt(messages, at);
    this.#fileChanged();
  }

  /**
   * {@link setVisibleAt} for the picks of a {@link plan}, leaving their groups to the
   * {@link refile} that must follow: filed once, not once here and again there.
   */
  markVisibleAt(messages: Iterable<StoredMessage>, at: number): void {
    for (const m of messages) {
      m.visibleAt = at;
      m.home.touched.add(m);
      this.#markChanged(m.home);
    }
  }

  /** Gives back the groups a {@link plan} took (those emptied meanwhile are dropped). */
  refile(groups: Iterable<MessageGroup>): void {
    for (const group of groups) this.#markChanged(group);
    this.#fileChanged();
  }

  /** `now` if a message is receivable, else when the next one will be; undefined if empty. */
  nextVisibleAt(now: number): number | undefined {
    return this.#schedule.nextVisibleAt(now);
  }

  /** Messages not visible at `now`, and those in groups blocked by one of them. */
  inFlight(now: number): { inFlight: number; blocked: number } {
    let inFlight = 0;
    let blocked = 0;
    for (const group of this.#touched.items) {
      let pending = 0;
      for (const m of group.touched.items) if (m.visibleAt > now) pending++;
      inFlight += pending;
      if (pending > 0) blocked += group.size;
    }
    return { inFlight, blocked };
  }

  /** Entries that rebuild this state; dedupe ids recorded at or before `cutoff` are left out. */
  snapshot(q: string, cutoff: number): QueueEntry[] {
    const dedupe = [...this.dedupe].filter(([, at]) => at > cutoff);
    const entries: QueueEntry[] = [{ t: 'queue.meta', q, lastSeq: this.lastSeq, dedupe }];
    const live = [...this.bySeq.values()].sort((a, b) => a.n - b.n);
    for (const m of live) {
      // One entry per message keeps its original send time.
      entries.push({ t: 'queue.send', q, at: m.sentAt, msgs: [sent(m)], dedupe: false });
    }
    if (this.dead.size > 0) entries.push({ t: 'queue.dead', q, letters: [...this.dead.values()] });
    return entries;
  }

  /** Forgets dedupe ids recorded at or before `cutoff` (in time order, so it stops early). */
  forgetDedupe(cutoff: number): void {
    for (const [id, at] of this.dedupe) {
      if (at > cutoff) break;
      this.dedupe.delete(id);
    }
  }

  #add(sent: Sent, at: number, remember: boolean): void {
    let group = this.groups.get(sent.group);
    if (!group) {
      group = new MessageGroup(sent.group);
      this.groups.set(sent.group, group);
      this.#markChanged(group); // a new group is filed; a longer one keeps its place
    }
    const message = new StoredMessage(sent, at, group);
    group.push(message);
    this.bySeq.set(sent.n, message);
    this.#bySent.push(message, this.bySeq.size);
    this.lastSeq = Math.max(this.lastSeq, sent.n);
    if (remember) this.#remember(sent.dedupeId, at);
  }

  #remove(n: number): StoredMessage | undefined {
    const message = this.bySeq.get(n);
    if (!message) return undefined;
    this.bySeq.delete(n);
    message.removed = true;
    const group = message.home;
    if (group.remove(message)) {
      if (group.size === 0) this.groups.delete(group.key);
      this.#markChanged(group);
    }
    return message;
  }

  #markChanged(group: MessageGroup): void {
    if (group.changed) return;
    group.changed = true;
    this.#changed.push(group);
  }

  /**
   * Files the changed groups again, in any order; an emptied one (gone from `groups`) is
   * dropped. Popped one by one: `length = 0` would call into the runtime at every change.
   */
  #fileChanged(): void {
    const changed = this.#changed;
    while (changed.length > 0) {
      const group = changed.pop()!;
      group.changed = false;
      this.#schedule.file(group);
      if (group.touched.size > 0) this.#touched.add(group);
      else this.#touched.delete(group);
    }
  }

  /** A send is accepted only once its id's window passed, so `at` is never older than the id's. */
  #remember(id: string, at: number): void {
    this.dedupe.delete(id); // re-insert at the end: the map stays ordered by time
    this.dedupe.set(id, at);
  }
}

function sent(m: StoredMessage): Sent {
  return { n: m.n, group: m.group, dedupeId: m.dedupeId, body: m.body };
}

/** Whether a journal entry belongs to the queue named `q`. */
export function ownsQueueEntry(entry: JournalEntry, q: string): boolean {
  return entry.t.startsWith('queue.') && entry.q === q;
}

/** The dead-letter form of a message. */
export function toLetter(m: StoredMessage, deadAt: number): Letter {
  const { n, group, dedupeId, body, sentAt, receiveCount } = m;
  return { n, group, dedupeId, body, sentAt, receiveCount, deadAt };
}
