import { ErrorCode, isBatonError } from '@baton/core';
import { type QueueMessage, seededRandom } from '@baton/core/adapter';
import { EmbeddedQueue } from '@baton/embedded';
import { describe, expect, it } from 'vitest';
import { FaultyQueue, type QueueFault } from './FaultyQueue.ts';

function msg(group: string, body: string): QueueMessage {
  return { group, dedupeId: `${group}:${body}`, body };
}

function setup(rates: { partialSend: number; reorder: number; seqPerGroup?: boolean }, seed = 1) {
  const inner = new EmbeddedQueue();
  const faults: QueueFault[] = [];
  const queue = new FaultyQueue(inner, {
    ...rates,
    random: seededRandom(seed),
    onFault: (f) => faults.push(f),
  });
  const bodies = () => inner.messages().map((m) => `${m.group}${m.body}`);
  return { inner, queue, faults, bodies };
}

describe('FaultyQueue', () => {
  it('accepts a later entry of a send while an earlier one fails, and names the failed one', async () => {
    let laterAccepted = false;
    for (let seed = 1; seed <= 20; seed++) {
      const { queue, faults, bodies } = setup({ partialSend: 1, reorder: 0 }, seed);
      const error = await queue.send([msg('a', '1'), msg('a', '2'), msg('a', '3')]).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isBatonError(error) && error.code).toBe(ErrorCode.UNAVAILABLE);
      const failed = (error as { details: { failed: string[] } }).details.failed;
      expect(failed).toHaveLength(1);
      expect(failed[0]).not.toBe('a:3'); // the failed entry is never the last one
      const sent = bodies();
      expect(sent).toHaveLength(2);
      expect(sent).not.toContain(failed[0]!.replace(':', ''));
      expect(faults).toEqual(['partialSend']);
      if (failed[0] === 'a:1') laterAccepted = sent[0] === 'a2';
      if (laterAccepted) break;
    }
    expect(laterAccepted).toBe(true);
  });

  it('sends an entry the partial send failed when the send is retried, and drops the copies', async () => {
    const { inner, queue } = setup({ partialSend: 1, reorder: 0 });
    const batch = [msg('a', '1'), msg('a', '2')];
    await queue.send(batch).catch(() => {});
    await inner.send(batch); // the retry: the queue's dedupe drops what went in the first time
    expect(
      inner
        .messages()
        .map((m) => m.body)
        .sort(),
    ).toEqual(['1', '2']);
  });

  it('reorders entries across groups but never within a group', async () => {
    const { queue, faults, bodies } = setup({ partialSend: 0, reorder: 1 });
    const batch = [msg('a', '1'), msg('b', '1'), msg('a', '2'), msg('b', '2'), msg('c', '1')];
    for (let round = 0; round < 10; round++) {
      await queue.send(batch.map((m) => ({ ...m, dedupeId: `${m.dedupeId}#${round}` })));
    }
    const sent = bodies();
    for (let round = 0; round < 10; round++) {
      const one = sent.slice(round * 5, round * 5 + 5);
      expect(one.filter((b) => b.startsWith('a'))).toEqual(['a1', 'a2']);
      expect(one.filter((b) => b.startsWith('b'))).toEqual(['b1', 'b2']);
    }
    expect(faults.length).toBeGreaterThan(0);
    expect(faults.every((f) => f === 'reorder')).toBe(true);
    expect(sent.slice(0, 50)).not.toEqual(
      Array.from({ length: 10 }, () => ['a1', 'b1', 'a2', 'b2', 'c1']).flat(),
    );
  });

  it('passes every send through untouched when its faults are off', async () => {
    const { queue, faults, bodies } = setup({ partialSend: 0, reorder: 0 });
    await queue.send([msg('a', '1'), msg('b', '1'), msg('a', '2')]);
    expect(bodies()).toEqual(['a1', 'b1', 'a2']);
    expect(faults).toEqual([]);
  });

  it('numbers each group apart with seqPerGroup: increasing within a group, not across groups', async () => {
    const { queue, faults } = setup({ partialSend: 0, reorder: 0, seqPerGroup: true });
    const groups = Array.from({ length: 8 }, (_, i) => `g${i}`);
    for (let round = 1; round <= 3; round++) {
      await queue.send(groups.map((g) => msg(g, String(round))));
    }
    const byGroup = new Map<string, bigint[]>();
    const order: bigint[] = [];
    // Messages received below the highest number yet, which another group's message carried.
    let top: { seq: bigint; group: string } | undefined;
    let unordered = 0;
    for (;;) {
      const received = await queue.receive({ max: 10, visibilityTimeoutMs: 30_000 });
      if (received.length === 0) break;
      for (const m of received) {
        const seq = BigInt(m.seq);
        byGroup.set(m.group, [...(byGroup.get(m.group) ?? []), seq]);
        order.push(seq);
        if (top && seq < top.seq && m.group !== top.group) unordered++;
        if (!top || seq > top.seq) top = { seq, group: m.group };
      }
      await queue.ack(received.map((m) => m.receipt));
    }
    expect([...byGroup.keys()].sort()).toEqual(groups);
    for (const seqs of byGroup.values()) {
      expect(seqs).toHaveLength(3);
      expect(seqs[0]! < seqs[1]! && seqs[1]! < seqs[2]!).toBe(true);
    }
    // Across groups the numbers say nothing of the order they were sent or received in.
    expect(order.some((seq, i) => i > 0 && seq < order[i - 1]!)).toBe(true);
    expect(unordered).toBeGreaterThan(0);
    expect(unordered).toBeLessThan(order.length - 1);
    expect(faults).toEqual(Array.from({ length: unordered }, () => 'unorderedSeq'));
  });

  it("hands out the queue's own numbers without seqPerGroup", async () => {
    const { inner, queue, faults } = setup({ partialSend: 0, reorder: 0 });
    await queue.send([msg('a', '1'), msg('b', '1')]);
    const received = await queue.receive({ max: 10, visibilityTimeoutMs: 30_000 });
    expect(received.map((m) => m.seq)).toEqual(inner.messages().map((m) => m.seq));
    expect(faults).toEqual([]);
  });
});
