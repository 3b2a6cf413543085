import type { QueueMessage } from '@baton/core/adapter';
import { describe, expect, it } from 'vitest';
import { EmbeddedQueue } from './EmbeddedQueue.ts';
import { type JournalEntry, MemoryJournal } from './Journal.ts';

const WINDOW = 1_000;
const VT = { visibilityTimeoutMs: 10 };

function msg(group: string, body: string, dedupeId = `${group}:${body}`): QueueMessage {
  return { group, dedupeId, body };
}

function journalOf(entries: readonly JournalEntry[]): MemoryJournal {
  const journal = new MemoryJournal();
  journal.append(entries);
  return journal;
}

/** What a restarted queue holds, and what it then accepts and delivers. */
async function probe(queue: EmbeddedQueue, clock: { t: number }) {
  const held = {
    messages: queue.messages(),
    deadLetters: queue.deadLetters(),
    counts: queue.counts(),
  };
  // d-old was accepted exactly one window ago, d-recent within it, fresh never.
  await queue.send([msg('p', 'old', 'd-old'), msg('p', 'recent', 'd-recent'), msg('p', 'fresh')]);
  const accepted = queue.messages().filter((m) => m.group === 'p');
  const delivered: string[] = [];
  for (let round = 0; round < 10; round++) {
    const got = await queue.receive({ max: 10, ...VT });
    await queue.ack(got.map((m) => m.receipt));
    delivered.push(...got.map((m) => `${m.seq}:${m.body}`));
    clock.t += VT.visibilityTimeoutMs;
  }
  return { held, accepted, delivered };
}

/**
 * Sends, receives past `maxReceives` into the dead-letter queue, a redrive of one dead letter,
 * acks (the newest message among them), and dedupe ids of different ages, from time 1500 to 2500.
 */
async function workload(queue: EmbeddedQueue, clock: { t: number }): Promise<void> {
  await queue.send([msg('a', '1', 'd-old'), msg('b', '1'), msg('c', '1')]);
  for (let i = 0; i < 3; i++) {
    await queue.receive({ max: 2, ...VT }); // a1 and b1, never acked: dead on the third
    clock.t += VT.visibilityTimeoutMs;
  }
  clock.t = 2_000;
  await queue.send([msg('a', '2', 'd-recent'), msg('c', '2'), msg('c', '3')]);
  const dead = queue.deadLetters();
  expect(dead.map((letter) => letter.body)).toEqual(['1', '1']);
  queue.redrive([dead[1]!.seq, '99']);
  const got = await queue.receive({ max: 10, ...VT });
  await queue.ack(got.filter((m) => m.body === '3' || m.group === 'b').map((m) => m.receipt));
  clock.t = 2_500;
}

describe('EmbeddedQueue with a journal', () => {
  it('holds after a restart, or rebuilt from its snapshot, its messages, dead letters, sequence counter and dedupe ids', async () => {
    const clock = { t: 1_500, now: () => clock.t };
    const journal = new MemoryJournal();
    const live = new EmbeddedQueue({ clock, journal, maxReceives: 2, dedupeWindowMs: WINDOW });
    await workload(live, clock);
    const snapshot = live.snapshot();
    // The counter, with only d-recent and the ids of 2000 left (d-old is exactly a window old).
    expect(snapshot[0]).toEqual({
      t: 'queue.meta',
      q: 'inbox',
      lastSeq: 7,
      dedupe: [
        ['d-recent', 2_000],
        ['c:2', 2_000],
        ['c:3', 2_000],
      ],
    });

    const options = { clock, maxReceives: 2, dedupeWindowMs: WINDOW };
    const restarted = await probe(new EmbeddedQueue({ ...options, journal }), clock);
    clock.t = 2_500;
    const rebuilt = await probe(
      new EmbeddedQueue({ ...options, journal: journalOf(snapshot) }),
      clock,
    );
    expect(rebuilt).toEqual(restarted);
    expect(restarted.held).toEqual({
      messages: [
        { seq: '3', group: 'c', dedupeId: 'c:1', body: '1', receiveCount: 0 },
        { seq: '4', group: 'a', dedupeId: 'd-recent', body: '2', receiveCount: 0 },
        { seq: '5', group: 'c', dedupeId: 'c:2', body: '2', receiveCount: 0 },
      ],
      deadLetters: [
        {
          ...{ seq: '1', group: 'a', dedupeId: 'd-old', body: '1' },
          ...{ sentAt: 1_500, receiveCount: 2, deadAt: 1_520 },
        },
      ],
      counts: { total: 3, visible: 3, receivable: 3, inFlight: 0, deadLetters: 1 },
    });
    expect(restarted.accepted.map((m) => `${m.seq}:${m.body}`)).toEqual(['8:old', '9:fresh']);
    expect(restarted.delivered).toEqual(['3:1', '4:2', '8:old', '5:2', '9:fresh']);
  });

  it('keeps the sequence counter when the newest message was acknowledged before a snapshot', async () => {
    const clock = { t: 0, now: () => clock.t };
    const live = new EmbeddedQueue({ clock });
    await live.send([msg('g', '1'), msg('g', '2')]);
    for (const _ of [1, 2]) {
      const got = await live.receive({ max: 1, ...VT });
      await live.ack(got.map((m) => m.receipt));
    }
    // No dead letters: the counter alone, and no empty list of them.
    expect(live.snapshot()).toEqual([
      {
        t: 'queue.meta',
        q: 'inbox',
        lastSeq: 2,
        dedupe: [
          ['g:1', 0],
          ['g:2', 0],
        ],
      },
    ]);
    const rebuilt = new EmbeddedQueue({ clock, journal: journalOf(live.snapshot()) });
    expect(rebuilt.messages()).toEqual([]);
    await rebuilt.send([msg('g', '3')]);
    expect(rebuilt.messages()).toMatchObject([{ seq: '3', body: '3' }]);
  });
});
