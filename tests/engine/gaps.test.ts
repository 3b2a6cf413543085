/**
 * Gaps on a channel are never bounded by the actor's record: a receiver remembers every message
 * missing from a sender (a long list moves out of the record into an item of its own), so each
 * one that arrives later — a redrive — is applied once, never skipped as a duplicate. Only past
 * what one item holds is the oldest gap forgotten, an error log: a message that comes there,
 * missing or a copy, is kept as a dead letter, neither applied nor skipped.
 */
import { actor, silentLogger } from '@baton/core';
import type { Envelope } from '@baton/core/adapter';
import {
  createEngine,
  GAPS_FORGOTTEN_LOG,
  RECORD_GAPS,
  redriveDeadLetter,
  redriveNeedsForce,
  runTurn,
} from '@baton/core/engine';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { START, setup } from './helpers.ts';

const DAY = 86_400_000;

function box() {
  const applied: number[] = [];
  const Box = actor({
    name: 'box',
    state: z.object({ n: z.number() }),
    initial: () => ({ n: 0 }),
    handlers: {
      put: {
        payload: z.object({ seq: z.number() }),
        handle: (ctx, { seq }) => {
          applied.push(seq);
          ctx.state.n++;
        },
      },
    },
  });
  return { Box, applied };
}

/** Message `seq` from box/s to box/t, its previous one on the channel `seq - 1`. */
const fromS = (seq: number): Envelope => ({
  id: `box/s:${seq}`,
  from: 'box/s',
  seq,
  prev: seq - 1,
  to: 'box/t',
  name: 'put',
  payload: { seq },
  sentAt: START,
});

/** Delivers the even messages 2, 4, … of `gaps` gaps, then the odd ones, then copies of all. */
async function evenThenOdd(
  engine: ReturnType<typeof createEngine>,
  gaps: number,
): Promise<{ evens: number[]; odds: number[] }> {
  const evens = Array.from({ length: gaps }, (_, i) => 2 * (i + 1));
  const odds = evens.map((seq) => seq - 1);
  let queueSeq = 0;
  const deliver = async (seqs: readonly number[]) => {
    for (const seq of seqs) {
      queueSeq++;
      await runTurn(engine, 'box/t', [{ envelope: fromS(seq), queueSeq: String(queueSeq) }]);
    }
  };
  await deliver(evens);
  await deliver(odds);
  await deliver([...odds, ...evens]);
  return { evens, odds };
}

describe('gaps on a channel', () => {
  it(`applies each of more than ${RECORD_GAPS} missing messages once when they arrive late`, async () => {
    const { Box, applied } = box();
    const errors: string[] = [];
    const engine = createEngine({
      ...setup({ actors: [Box] }).engine,
      actors: [Box],
      logger: { ...silentLogger, error: (message) => errors.push(message) },
    });
    const { evens, odds } = await evenThenOdd(engine, 3 * RECORD_GAPS);

    expect(applied.filter((seq) => seq % 2 === 1)).toEqual(odds);
    expect(applied.filter((seq) => seq % 2 === 0)).toEqual(evens);
    expect(errors.filter((e) => e.includes('forgotten'))).toEqual([]);
    // The record itself never lists a long gap list.
    const record = await engine.store.load('box/t');
    expect(record?.marks['box/s']?.missing?.length ?? 0).toBeLessThanOrEqual(RECORD_GAPS);
  });

  it('keeps a message that comes where a mark forgot its gaps, missing or a copy, as a dead letter too old to tell', async () => {
    const { Box, applied } = box();
    const errors: { message: string; fields: unknown }[] = [];
    const h = setup({ actors: [Box], limits: { maxItemBytes: 2_000 } });
    const engine = createEngine({
      ...h.engine,
      actors: [Box],
      logger: { ...silentLogger, error: (message, fields) => errors.push({ message, fields }) },
    });
    // A 2 KB item holds 27 gaps: of the 40 the evens open, the 13 oldest (1, 3, …, 25) go.
    const { evens, odds } = await evenThenOdd(engine, 40);

    const forgotten = errors.filter((e) => e.message === GAPS_FORGOTTEN_LOG);
    expect(forgotten.length).toBe(13);
    expect(forgotten[0]?.fields).toMatchObject({
      actor: 'box/t',
      from: 'box/s',
      forgotten: [[0, 1]],
    });
    // Every message applied once at most: none where the gaps were forgotten, after they were.
    expect(new Set(applied).size).toBe(applied.length);
    const late = odds.filter((seq) => seq > 25);
    expect([...applied].sort(byNumber)).toEqual([...evens, ...late].sort(byNumber));
    // Kept instead: the 13 missing ones, and the copies of the evens applied there (2, …, 24),
    // which the mark can no more tell from them. None is redriven without force.
    const letters = await h.backend.store.listDeadLetters('box/t');
    const kept = letters.map((letter) => letter.envelope.seq).sort(byNumber);
    expect(kept).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    expect(letters.every(redriveNeedsForce)).toBe(true);
    // An earlier Baton, which would write the mark back without what it forgot, may not write it.
    expect((await h.backend.store.load('box/t'))?.format).toBe(3);
    expect(letters[0]?.error).toMatchObject({
      code: 'DEAD_LETTERED',
      // What `baton dead-letters show` tells this cause by.
      details: { actorId: 'box/t', forgottenGaps: true },
      message: expect.stringMatching(
        /gaps were forgotten.*redrive it only if you know it was never applied/,
      ),
    });
  });

  it('applies a kept message of a forgotten gap once when it is redriven with force, and keeps no copy after', async () => {
    const { Box, applied } = box();
    const h = setup({ actors: [Box], limits: { maxItemBytes: 2_000 } });
    const engine = createEngine({ ...h.engine, actors: [Box] });
    let queueSeq = 0;
    const deliver = (envelope: Envelope) =>
      runTurn(engine, 'box/t', [{ envelope, queueSeq: String(++queueSeq) }]);
    // 29 gaps: the two oldest, 1 and 3, are forgotten.
    for (let seq = 2; seq <= 58; seq += 2) await deliver(fromS(seq));
    await deliver(fromS(1));
    const [letter, ...others] = await h.backend.store.listDeadLetters('box/t');
    expect(others).toEqual([]);
    expect(letter?.messageId).toBe('box/s:1');
    expect(applied).not.toContain(1);
    await expect(
      redriveDeadLetter(h.backend.store, h.backend.queue, 'box/t', 'box/s:1'),
    ).rejects.toThrow(/too old to tell/);

    // The operator knows 1 never applied: its redrive with force applies it.
    await deliver({ ...letter!.envelope, redrive: letter!.at });
    await deliver(fromS(1)); // a copy of it comes later: its applied letter tells it
    expect(applied.filter((seq) => seq === 1)).toEqual([1]);
    // No letter waits; the one kept as the proof of the redrive tells later copies.
    expect(await h.backend.store.listDeadLetters('box/t')).toEqual([]);
    expect(await h.backend.store.readDeadLetter('box/t', 'box/s:1')).toMatchObject({
      applied: expect.anything(),
    });
  });
});

const byNumber = (a: number, b: number) => a - b;

describe('what a gap on a channel logs', () => {
  it('logs an error naming the missing range, and a warning when the missing message arrives late', async () => {
    const { Box, applied } = box();
    const logs: { level: string; message: string; fields: unknown }[] = [];
    const record =
      (level: string) =>
      (message: string, fields?: Record<string, unknown>): void => {
        logs.push({ level, message, fields });
      };
    const engine = createEngine({
      ...setup({ actors: [Box] }).engine,
      actors: [Box],
      logger: { ...silentLogger, warn: record('warn'), error: record('error') },
    });
    const deliver = (seq: number, queueSeq: number) =>
      runTurn(engine, 'box/t', [{ envelope: fromS(seq), queueSeq: String(queueSeq) }]);

    await deliver(1, 1); // next on its channel: nothing to say
    expect(logs).toEqual([]);
    await deliver(4, 2); // 2 and 3 never arrived
    expect(logs).toEqual([
      {
        level: 'error',
        message: 'gap on a channel: messages from the sender never arrived in order',
        fields: {
          actor: 'box/t',
          from: 'box/s',
          messageId: 'box/s:4',
          missingAfter: 1,
          missingUpTo: 3,
        },
      },
    ]);
    logs.length = 0;
    await deliver(3, 3); // one of them, redriven
    expect(logs).toEqual([
      {
        level: 'warn',
        message: 'applying a message that was missing from its channel',
        fields: { actor: 'box/t', messageId: 'box/s:3' },
      },
    ]);
    logs.length = 0;
    await deliver(5, 4); // next after 4: nothing to say
    expect(logs).toEqual([]);
    expect(applied).toEqual([1, 4, 3, 5]);
  });

  /** An engine on `h` whose warnings and errors are kept in `logs`. */
  function logged(h: ReturnType<typeof setup>, Box: ReturnType<typeof box>['Box']) {
    const logs: { level: string; message: string }[] = [];
    const engine = createEngine({
      ...h.engine,
      actors: [Box],
      logger: {
        ...silentLogger,
        warn: (message) => logs.push({ level: 'warn', message }),
        error: (message) => logs.push({ level: 'error', message }),
      },
    });
    return { engine, logs };
  }

  it('logs an error for a gap at a receiver with no mark while the message is too young to have outlived one', async () => {
    const { Box, applied } = box();
    const h = setup({ actors: [Box] });
    const { engine, logs } = logged(h, Box);
    // The receiver never applied 1: 2 says it was sent, a day ago, and 1 is missing.
    const envelope = { ...fromS(2), sentAt: h.clock.now() - DAY };
    await runTurn(engine, 'box/t', [{ envelope, queueSeq: '1' }]);
    expect(applied).toEqual([2]);
    expect(logs).toEqual([
      {
        level: 'error',
        message: 'gap on a channel: messages from the sender never arrived in order',
      },
    ]);
  });

  it('logs an error for a gap below an old message while the receiver still keeps its sender’s mark', async () => {
    const { Box, applied } = box();
    const h = setup({ actors: [Box] });
    const { engine, logs } = logged(h, Box);
    await runTurn(engine, 'box/t', [{ envelope: fromS(1), queueSeq: '1' }]);
    // 3, sent a day after 1, arrives 20 days later: the mark of 1 is there, and 2 never came.
    h.clock.advance(21 * DAY);
    const envelope = { ...fromS(3), sentAt: h.clock.now() - 20 * DAY };
    await runTurn(engine, 'box/t', [{ envelope, queueSeq: '2' }]);
    expect(applied).toEqual([1, 3]);
    expect(logs).toEqual([
      {
        level: 'error',
        message: 'gap on a channel: messages from the sender never arrived in order',
      },
    ]);
  });

  it('warns, not errs, for a gap at a receiver with no mark from a message old enough to have outlived it', async () => {
    const { Box, applied } = box();
    const h = setup({ actors: [Box] });
    const { engine, logs } = logged(h, Box);
    await runTurn(engine, 'box/t', [{ envelope: fromS(1), queueSeq: '1' }]);
    // 2 was sent 3 days after 1, then stranded 26 days: the receiver's mark of 1 (28 days) is
    // gone, and the gap below 2 is what it applied before it forgot, not a message lost.
    h.clock.advance(29 * DAY);
    const envelope = { ...fromS(2), sentAt: h.clock.now() - 26 * DAY };
    await runTurn(engine, 'box/t', [{ envelope, queueSeq: '2' }]);
    expect(applied).toEqual([1, 2]);
    expect(logs).toEqual([
      {
        level: 'warn',
        message:
          'gap on a channel past a forgotten mark: the messages it skips were most likely applied',
      },
    ]);
  });

  it('applies a missing message however old it is, while the receiver keeps its sender’s mark', async () => {
    const { Box, applied } = box();
    const h = setup({ actors: [Box] });
    const deliver = (seq: number, queueSeq: number) =>
      runTurn(h.engine, 'box/t', [
        {
          envelope: { ...fromS(seq), sentAt: h.clock.now() - (seq === 2 ? 27 * DAY : 0) },
          queueSeq: String(queueSeq),
        },
      ]);
    await deliver(1, 1);
    await deliver(3, 2); // 2 is missing
    h.clock.advance(27 * DAY);
    await deliver(4, 3); // the channel goes on: its mark is fresh
    await deliver(2, 4); // sent 27 days ago, near the mark retention (28 days), and never applied
    expect(applied).toEqual([1, 3, 4, 2]);
    expect(await h.backend.store.listDeadLetters('box/t')).toEqual([]);
  });
});
