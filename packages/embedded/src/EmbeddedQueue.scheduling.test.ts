import type { QueueMessage, ReceivedMessage } from '@baton/core/adapter';
import { describe, expect, it } from 'vitest';
import { EmbeddedQueue } from './EmbeddedQueue.ts';
import { seededRandom } from './fixtures/seededRandom.ts';
import { MemoryJournal } from './Journal.ts';

function setup(options: { maxReceives?: number; journal?: MemoryJournal } = {}) {
  const clock = { t: 1_000_000, now: () => clock.t };
  return { clock, queue: new EmbeddedQueue({ clock, ...options }) };
}

const msg = (group: string, body: string): QueueMessage => ({
  group,
  dedupeId: `${group}:${body}`,
  body,
});
const names = (got: readonly ReceivedMessage[]) => got.map((m) => `${m.group}${m.body}`);
const VT = { visibilityTimeoutMs: 1_000 };

/**
 * SQS FIFO delivery as the queue did it before it kept a schedule: a full scan of every group
 * on each receive. The scheduled queue must answer exactly as this does.
 */
class ReferenceQueue {
  readonly groups = new Map<string, RefMessage[]>();
  readonly dead: RefMessage[] = [];
  #seq = 0;
  #deliveries = 0;

  constructor(
    readonly now: () => number,
    readonly maxReceives: number,
  ) {}

  send(messages: readonly QueueMessage[]): void {
    for (const { group, body } of messages) this.#append({ group, body, n: ++this.#seq });
  }

  receive(max: number, visibilityTimeoutMs: number): Omit<ReceivedMessage, 'dedupeId'>[] {
    const now = this.now();
    const cursors = [...this.groups.values()]
      .filter((ms) => ms.every((m) => m.visibleAt <= now))
      .sort((a, b) => a[0]!.n - b[0]!.n)
      .map((messages) => ({ messages, next: 0 }));
    const picks: RefMessage[] = [];
    const dead: RefMessage[] = [];
    while (picks.length < max && cursors.length > 0) {
      for (let c = 0; c < cursors.length && picks.length < max; ) {
        const cursor = cursors[c]!;
        let m = cursor.messages[cursor.next];
        while (m && m.receiveCount >= this.maxReceives) {
          dead.push(m);
          m = cursor.messages[++cursor.next];
        }
        if (!m) {
          cursors.splice(c, 1);
          continue;
        }
        picks.push(m);
        cursor.next++;
        c++;
      }
    }
    for (const m of dead) this.#remove(m);
    this.dead.push(...dead);
    return picks.map((m) => {
      m.receiveCount++;
      m.visibleAt = now + visibilityTimeoutMs;
      m.receipt = `${m.n}.${++this.#deliveries}`;
      const { group, body, receipt, receiveCount } = m;
      return { group, body, receipt, receiveCount, seq: String(m.n) };
    });
  }

  find(receipt: string): RefMessage | undefined {
    for (const ms of this.groups.values()) for (const m of ms) if (m.receipt === receipt) return m;
    return undefined;
  }

  ack(m: RefMessage): void {
    this.#remove(m);
  }

  /** After a restart every message is visible again, never received, with no receipt. */
  restart(): void {
    for (const ms of this.groups.values()) {
      for (const m of ms) Object.assign(m, { visibleAt: 0, receiveCount: 0, receipt: '' });
    }
  }

  redrive(): void {
    for (const m of this.dead.splice(0))
      this.#append({ group: m.group, body: m.body, n: ++this.#seq });
  }

  nextVisibleAt(): number | undefined {
    let earliest: number | undefined;
    for (const ms of this.groups.values()) {
      const at = Math.max(0, ...ms.map((m) => m.visibleAt));
      if (at <= this.now()) return this.now();
      if (earliest === undefined || at < earliest) earliest = at;
    }
    return earliest;
  }

  counts() {
    const now = this.now();
    const all = [...this.groups.values()].flat();
    const visible = all.filter((m) => m.visibleAt <= now).length;
    const receivable = [...this.groups.values()]
      .filter((ms) => ms.every((m) => m.visibleAt <= now))
      .reduce((sum, ms) => sum + ms.length, 0);
    const total = all.length;
    return { total, visible, receivable, inFlight: total - visible, deadLetters: this.dead.length };
  }

  #append(m: { group: string; body: string; n: number }): void {
    const message = { ...m, visibleAt: 0, receiveCount: 0, receipt: '' };
    this.groups.set(m.group, [...(this.groups.get(m.group) ?? []), message]);
  }

  #remove(m: RefMessage): void {
    const rest = this.groups.get(m.group)!.filter((x) => x !== m);
    if (rest.length > 0) this.groups.set(m.group, rest);
    else this.groups.delete(m.group);
  }
}

interface RefMessage {
  readonly group: string;
  readonly body: string;
  readonly n: number;
  visibleAt: number;
  receiveCount: number;
  receipt: string;
}

describe('EmbeddedQueue scheduling', () => {
  it('answers every operation exactly as a full scan of the queue would, also across restarts', async () => {
    for (let seed = 1; seed <= 40; seed++) {
      const rand = seededRandom(seed);
      const maxReceives = 1 + rand(4);
      const journal = new MemoryJournal();
      const { clock } = setup();
      let queue = new EmbeddedQueue({ clock, maxReceives, journal });
      const ref = new ReferenceQueue(() => clock.t, maxReceives);
      /** Receipts handed out, by ours, with the reference's twin; stale ones are kept too. */
      const receipts: [ours: string, theirs: string][] = [];
      let bodies = 0;
      for (let step = 0; step < 300; step++) {
        const op = rand(100);
        if (op < 25) {
          const batch = Array.from({ length: 1 + rand(4) }, () =>
            msg(`g${rand(8)}`, String(++bodies)),
          );
          await queue.send(batch);
          ref.send(batch);
        } else if (op < 55) {
          const max = 1 + rand(10);
          const vt = rand(4) * 500; // 0 included: a group receivable again at once
          const got = await queue.receive({ max, visibilityTimeoutMs: vt });
          const want = ref.receive(max, vt);
          expect(
            got.map(({ dedupeId, receipt, ...m }) => m),
            `seed ${seed} step ${step}`,
          ).toEqual(want.map(({ receipt, ...m }) => m));
          for (const [i, m] of got.entries()) receipts.push([m.receipt, want[i]!.receipt]);
        } else if (op < 75 && receipts.length > 0) {
          const chosen = Array.from(
            { length: 1 + rand(3) },
            () => receipts[rand(receipts.length)]!,
          );
          await queue.ack(chosen.map(([ours]) => ours));
          for (const [, theirs] of chosen) {
            const m = ref.find(theirs);
            if (m) ref.ack(m);
          }
        } else if (op < 85 && receipts.length > 0) {
          const chosen = Array.from(
            { length: 1 + rand(3) },
            () => receipts[rand(receipts.length)]!,
          );
          const delay = rand(3) * 700;
          await queue.release(
            chosen.map(([ours]) => ours),
            delay,
          );
          for (const [, theirs] of chosen) {
            const m = ref.find(theirs);
            if (m) m.visibleAt = clock.t + delay;
          }
        } else if (op < 88) {
          queue.redrive();
          ref.redrive();
        } else if (op < 90) {
          // A restart rebuilds the queue from its journal, compacted to a snapshot or not.
          if (rand(2) === 0) journal.replace(queue.snapshot());
          queue.close();
          queue = new EmbeddedQueue({ clock, maxReceives, journal });
          ref.restart();
        } else if (op < 98) {
          clock.t += rand(1_500);
        } else {
          clock.t -= rand(500); // a virtual clock may be set back
        }
        expect(queue.counts(), `seed ${seed} step ${step}`).toEqual(ref.counts());
        expect(queue.nextVisibleAt(), `seed ${seed} step ${step}`).toBe(ref.nextVisibleAt());
      }
    }
  });

  it('serves the oldest heads of thousands of groups, and each group in order', async () => {
    const { queue } = setup();
    const groups = 5_000;
    for (let round = 0; round < 3; round++) {
      await queue.send(Array.from({ length: groups }, (_, g) => msg(`g${g}`, String(round))));
    }
    const seen = new Map<string, string[]>();
    let receives = 0;
    for (;;) {
      const got = await queue.receive({ max: 10, ...VT });
      if (got.length === 0) break;
      receives++;
      expect(new Set(got.map((m) => m.group)).size).toBe(got.length); // one per group in flight
      if (receives === 1) expect(names(got)).toEqual([...Array(10).keys()].map((g) => `g${g}0`));
      for (const m of got) seen.set(m.group, [...(seen.get(m.group) ?? []), m.body]);
      await queue.ack(got.map((m) => m.receipt));
    }
    expect(seen.size).toBe(groups);
    for (const bodies of seen.values()) expect(bodies).toEqual(['0', '1', '2']);
    expect(queue.counts().total).toBe(0);
  });

  it('does not let a deep group crowd out the others', async () => {
    const { queue } = setup();
    await queue.send(Array.from({ length: 1_000 }, (_, i) => msg('deep', String(i))));
    await queue.send(Array.from({ length: 20 }, (_, g) => msg(`s${g}`, '0')));
    const got = await queue.receive({ max: 10, ...VT });
    expect(names(got)).toEqual(['deep0', ...[...Array(9).keys()].map((g) => `s${g}0`)]);
  });

  it('keeps serving other groups while one is blocked, and resumes it in order', async () => {
    const { queue, clock } = setup();
    await queue.send([msg('a', '1'), msg('a', '2'), msg('b', '1')]);
    const [a1] = await queue.receive({ max: 1, visibilityTimeoutMs: 60_000 });
    expect(a1?.body).toBe('1');
    for (let i = 0; i < 50; i++) {
      await queue.send([msg(`c${i}`, '1')]);
      const got = await queue.receive({ max: 10, ...VT });
      expect(got.some((m) => m.group === 'a')).toBe(false);
      await queue.ack(got.map((m) => m.receipt));
      clock.t += 10;
    }
    expect(queue.counts()).toMatchObject({ total: 2, receivable: 0, inFlight: 1 });
    await queue.ack([a1!.receipt]);
    expect(names(await queue.receive({ max: 10, ...VT }))).toEqual(['a2']);
  });

  it('puts a group back by its head once its visibility timeout passes', async () => {
    const { queue, clock } = setup();
    await queue.send([msg('a', '1'), msg('b', '1'), msg('c', '1')]);
    await queue.receive({ max: 1, ...VT }); // a1, never acked
    clock.t += 1_000;
    expect(queue.nextVisibleAt()).toBe(clock.t);
    expect(names(await queue.receive({ max: 10, ...VT }))).toEqual(['a1', 'b1', 'c1']);
  });

  it('serves a group that emptied and was sent to again as a new group, once', async () => {
    const { clock, queue } = setup({ maxReceives: 1 });
    await queue.send([msg('a', '1'), msg('b', '1')]);
    const [a1] = await queue.receive({ max: 1, ...VT });
    await queue.ack([a1!.receipt]); // group a empties
    await queue.send([msg('a', '2')]);
    expect(names(await queue.receive({ max: 10, ...VT }))).toEqual(['b1', 'a2']);
    clock.t += 1_000;
    // Both due for a second receive: dead-lettered, which empties both groups within the receive.
    expect(await queue.receive({ max: 10, ...VT })).toEqual([]);
    expect(queue.deadLetters().map((m) => `${m.group}${m.body}`)).toEqual(['b1', 'a2']);
    expect(queue.nextVisibleAt()).toBeUndefined();
    await queue.send([msg('a', '3')]);
    expect(names(await queue.receive({ max: 10, ...VT }))).toEqual(['a3']);
    expect(await queue.receive({ max: 10, ...VT })).toEqual([]);
    expect(queue.nextVisibleAt()).toBe(clock.t + 1_000);
    expect(queue.counts()).toMatchObject({ total: 1, inFlight: 1, deadLetters: 2 });
  });

  it('delivers in the same order after a replay of its journal', async () => {
    const journal = new MemoryJournal();
    const first = setup({ journal });
    await first.queue.send([msg('a', '1'), msg('b', '1'), msg('a', '2'), msg('c', '1')]);
    const [a1] = await first.queue.receive({ max: 1, ...VT });
    await first.queue.ack([a1!.receipt]);
    first.queue.close();
    const again = setup({ journal });
    expect(names(await again.queue.receive({ max: 10, ...VT }))).toEqual(['b1', 'a2', 'c1']);
  });
});
