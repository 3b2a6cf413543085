import fc from 'fast-check';
import { beforeEach, describe, expect, it } from 'vitest';
import { checkCommit } from '../adapter/checkCommit.ts';
import { jsonSize } from '../adapter/conflicts.ts';
import type { Envelope } from '../adapter/envelope.ts';
import type { OverflowMark } from '../adapter/marks.ts';
import { pageEntryBytes } from '../adapter/outcomePageBytes.ts';
import type { Commit, StoreLimits } from '../adapter/ports.ts';
import type {
  ActorRecord,
  DeadLetter,
  IdempotencyRecord,
  Timer,
} from '../adapter/storedRecords.ts';
import { ErrorCode, type SerializedError } from '../errors.ts';
import { CommitBuilder } from './CommitBuilder.ts';
import { pruneMarks } from './channels.ts';
import type { MessageEffects } from './commitParts.ts';
import { outboxItemOverhead } from './outboxItemOverhead.ts';

const ACTOR = 'sender/a';

const base: ActorRecord = {
  id: ACTOR,
  ver: 3,
  state: { n: 0 },
  inboxOffset: '10',
  marks: {},
  sentSeq: 0,
};

const roomy: StoreLimits = {
  maxTransactionItems: 100,
  maxTransactionBytes: 4_000_000,
  maxItemBytes: 400_000,
};

let seq = 100;
// Three-digit sequence numbers keep envelopes of one payload size the same size within a test.
beforeEach(() => {
  seq = 100;
});

function envelope(payloadBytes = 10): Envelope {
  seq++;
  return {
    id: `${ACTOR}:${seq}`,
    from: ACTOR,
    seq,
    to: 'target/b',
    name: 'note',
    payload: { text: 'x'.repeat(payloadBytes) },
    sentAt: 0,
  };
}

function effects(
  envelopes: readonly Envelope[],
  options: { idempotency?: boolean; state?: unknown } = {},
): MessageEffects {
  const idempotency: IdempotencyRecord | undefined = options.idempotency
    ? {
        key: `key-${envelopes[0]?.seq ?? Math.random()}`,
        actorId: ACTOR,
        outcome: { ok: true, value: null },
        expiresAt: 1,
      }
    : undefined;
  return {
    record: { ...base, state: options.state ?? base.state },
    envelopes,
    idempotency,
  };
}

/** A message of ACTOR ended as REJECTED after three attempts, kept as a dead letter. */
function deadLetterOf(messageId: string): DeadLetter {
  const error: SerializedError = { code: ErrorCode.REJECTED, message: 'no', details: {} };
  return {
    actorId: ACTOR,
    messageId,
    envelope: envelope(),
    redrivable: true,
    error,
    attempts: 3,
    at: 0,
  };
}

/** The size an envelope takes in an item, as the builder counts it. */
const sizeOf = (e: Envelope) => jsonSize(e) + 1;
/** The bytes of an outbox item of ACTOR besides its envelopes, when `first` opens it. */
const overheadOf = (first: Envelope) => outboxItemOverhead(ACTOR, first.seq);

describe('CommitBuilder', () => {
  it('starts empty with the base record', () => {
    const builder = new CommitBuilder(base, roomy);
    expect(builder.size).toBe(0);
    expect(builder.record).toBe(base);
    expect(builder.take(ACTOR, 5)).toEqual({ outbox: [], idempotency: [] });
  });

  it('puts the sends of several messages into one outbox item while they fit the item limit', () => {
    const builder = new CommitBuilder(base, roomy);
    const first = [envelope(), envelope()];
    const second = [envelope()];
    builder.add(effects(first));
    builder.add(effects(second));
    expect(builder.size).toBe(2);
    const { outbox } = builder.take(ACTOR, 1234);
    expect(outbox).toEqual([
      { actorId: ACTOR, seq: first[0]!.seq, envelopes: [...first, ...second], createdAt: 1234 },
    ]);
  });

  it('starts a new outbox item when the next send would pass the item limit', () => {
    const one = envelope(50);
    // Room for exactly three envelopes of this size after the item's overhead.
    const limits = { ...roomy, maxItemBytes: overheadOf(one) + 3 * sizeOf(one) };
    const builder = new CommitBuilder(base, limits);
    const sends = [one, envelope(50), envelope(50), envelope(50), envelope(50)];
    builder.add(effects(sends.slice(0, 2)));
    builder.add(effects(sends.slice(2)));
    const { outbox } = builder.take(ACTOR, 0);
    expect(outbox.map((item) => item.envelopes.map((e) => e.seq))).toEqual([
      sends.slice(0, 3).map((e) => e.seq),
      sends.slice(3).map((e) => e.seq),
    ]);
    expect(outbox.map((item) => item.seq)).toEqual([sends[0]!.seq, sends[3]!.seq]);
  });

  it('says a message does not fit once the record, outbox and idempotency items pass the item limit', () => {
    const limits = { ...roomy, maxTransactionItems: 4 };
    const builder = new CommitBuilder(base, limits);
    // record + 2 idempotency records = 3 items
    builder.add(effects([], { idempotency: true }));
    builder.add(effects([], { idempotency: true }));
    expect(builder.fits(effects([], { idempotency: true }))).toBe(true); // 4 items
    builder.add(effects([], { idempotency: true }));
    expect(builder.fits(effects([], { idempotency: true }))).toBe(false); // 5 items
    expect(builder.fits(effects([]))).toBe(true); // a message without a key adds no item
    expect(builder.fits(effects([envelope()]))).toBe(false); // its send would open an outbox item
  });

  it('says a message does not fit when its sends need more outbox items than are left', () => {
    const e = envelope(50);
    const limits = {
      ...roomy,
      maxTransactionItems: 3,
      maxItemBytes: overheadOf(e) + 2 * sizeOf(e),
    };
    const builder = new CommitBuilder(base, limits);
    expect(builder.fits(effects([e, envelope(50)]))).toBe(true); // record + 1 item
    expect(builder.fits(effects([e, envelope(50), envelope(50), envelope(50)]))).toBe(true); // + 2
    expect(builder.fits(effects([e, ...Array.from({ length: 4 }, () => envelope(50))]))).toBe(
      false,
    ); // record + 3 items
  });

  it('counts sends that still fit the open outbox item as no new item', () => {
    const e = envelope(50);
    const limits = {
      ...roomy,
      maxTransactionItems: 2,
      maxItemBytes: overheadOf(e) + 3 * sizeOf(e),
    };
    const builder = new CommitBuilder(base, limits);
    builder.add(effects([e]));
    expect(builder.fits(effects([envelope(50), envelope(50)]))).toBe(true);
    expect(builder.fits(effects([envelope(50), envelope(50), envelope(50)]))).toBe(false);
  });

  it('says a message does not fit when the commit would pass the byte limit', () => {
    const state = { text: 'y'.repeat(1000) };
    const recordBytes = jsonSize({ ...base, state });
    const limits = { ...roomy, maxTransactionBytes: recordBytes + 100 };
    const builder = new CommitBuilder(base, limits);
    expect(builder.fits(effects([], { state }))).toBe(true);
    expect(builder.fits(effects([envelope(200)], { state }))).toBe(false);
    expect(builder.fits(effects([], { state: { text: 'y'.repeat(1200) } }))).toBe(false);
  });

  it('counts the bytes of messages already added against the byte limit', () => {
    const one = envelope();
    const limits = {
      ...roomy,
      maxTransactionBytes: jsonSize(base) + overheadOf(one) + 3 * sizeOf(one),
    };
    const builder = new CommitBuilder(base, limits);
    builder.add(effects([envelope(), envelope()]));
    expect(builder.fits(effects([envelope()]))).toBe(true);
    builder.add(effects([envelope()]));
    expect(builder.fits(effects([envelope()]))).toBe(false);
  });

  it('takes the pending outbox and idempotency records and is empty afterwards', () => {
    const builder = new CommitBuilder(base, roomy);
    const added = effects([envelope()], { idempotency: true });
    builder.add(added);
    const taken = builder.take(ACTOR, 7);
    expect(taken.idempotency).toEqual([added.idempotency]);
    expect(taken.outbox).toHaveLength(1);
    expect(builder.size).toBe(0);
    expect(builder.take(ACTOR, 8)).toEqual({ outbox: [], idempotency: [] });
    // The next send opens a new item rather than joining a taken one.
    builder.add(effects([envelope()]));
    expect(builder.take(ACTOR, 9).outbox).toHaveLength(1);
  });

  it("keeps each builder's dead letters, redrives, marks and timers its own, and none after take", () => {
    const timer: Timer = {
      actorId: ACTOR,
      id: 't',
      gen: 'g',
      at: 1,
      name: 'tick',
      payload: null,
      createdAt: 0,
    };
    const written: MessageEffects = {
      ...effects([]),
      deadLetter: deadLetterOf('m1'),
      redriven: 'm0',
      overflow: [{ kind: 'sender', peer: 'peer/a', mark: { seq: 1, at: 0 }, expiresAt: 1 }],
      timers: new Map([['t', timer]]),
    };
    const first = new CommitBuilder(base, roomy);
    first.add(written);
    const other = new CommitBuilder(base, roomy);
    expect(other.pendingTimerIds()).toEqual([]);
    expect(other.take(ACTOR, 1)).toEqual({ outbox: [], idempotency: [] });
    const taken = first.take(ACTOR, 1);
    expect(taken.deadLetters).toEqual({ put: [written.deadLetter], remove: ['m0'] });
    expect(taken.overflow).toEqual(written.overflow);
    expect(taken.timers).toEqual({ put: [timer], remove: [] });
    expect(first.pendingTimerIds()).toEqual([]);
    expect(first.take(ACTOR, 2)).toEqual({ outbox: [], idempotency: [] });
  });

  it('counts a redriven letter the message puts again under its id (its proof, or kept again) as the one write the commit makes', () => {
    const builder = new CommitBuilder(base, { ...roomy, maxTransactionItems: 2 });
    const letter = deadLetterOf(`${ACTOR}:7`);
    const proof = { ...letter, applied: { at: 1, expiresAt: 2 } };
    const redrive = { ...effects([]), redriven: letter.messageId, deadLetter: proof };
    expect(builder.fits(redrive)).toBe(true); // the record and the letter
    builder.add(redrive);
    expect(builder.fits(effects([]))).toBe(true); // still two
    expect(builder.take(ACTOR, 0).deadLetters).toEqual({ put: [proof], remove: [] });
  });

  it('forgets a dead letter put earlier in the commit when its message is redriven', () => {
    const builder = new CommitBuilder(base, roomy);
    builder.add({ ...effects([]), deadLetter: deadLetterOf('m1') });
    builder.add({ ...effects([]), redriven: 'm1' });
    expect(builder.take(ACTOR, 1).deadLetters).toEqual({ put: [], remove: ['m1'] });
  });

  it("keeps a copy's outcome apart only where no message of the commit writes its key", () => {
    const outcome = (value: string): IdempotencyRecord => ({
      key: 'k',
      actorId: ACTOR,
      outcome: { ok: true, value },
      expiresAt: 1,
    });
    const redrive = (value: string): MessageEffects => ({
      ...effects([]),
      idempotency: outcome(value),
      replacesOutcome: true,
    });
    // Kept apart, then the key's redrive in the same commit: the redrive's outcome takes its place.
    const later = new CommitBuilder(base, roomy);
    later.keepApart(outcome('kept'));
    expect(later.size).toBe(1);
    later.add(redrive('redriven'));
    expect(later.take(ACTOR, 1).replaceIdempotency).toEqual([outcome('redriven')]);
    // The redrive first: the copy's outcome is not kept beside it.
    const earlier = new CommitBuilder(base, roomy);
    earlier.add(redrive('redriven'));
    earlier.keepApart(outcome('kept'));
    expect(earlier.take(ACTOR, 1).replaceIdempotency).toEqual([outcome('redriven')]);
    // Beside a redrive of another key, it is kept.
    const other = new CommitBuilder(base, roomy);
    const redriveOther: MessageEffects = {
      ...redrive('other'),
      idempotency: { ...outcome('other'), key: 'j' },
    };
    other.add(redriveOther);
    other.keepApart(outcome('kept'));
    expect(other.take(ACTOR, 1).replaceIdempotency).toEqual([
      redriveOther.idempotency,
      outcome('kept'),
    ]);
    // Nor beside a message's first outcome of the key.
    const applied = new CommitBuilder(base, roomy);
    applied.add({ ...effects([]), idempotency: outcome('applied') });
    applied.keepApart(outcome('kept'));
    const taken = applied.take(ACTOR, 1);
    expect(taken.idempotency).toEqual([outcome('applied')]);
    expect(taken.replaceIdempotency).toBeUndefined();
    // Alone, it is written as an item of its own, and the builder is empty after.
    const alone = new CommitBuilder(base, roomy);
    alone.keepApart(outcome('kept'));
    expect(alone.take(ACTOR, 1).replaceIdempotency).toEqual([outcome('kept')]);
    expect(alone.take(ACTOR, 2)).toEqual({ outbox: [], idempotency: [] });
  });

  it('keeps the record of the last message added, and the committed one after reset', () => {
    const builder = new CommitBuilder(base, roomy);
    const added = effects([], { state: { n: 1 } });
    builder.add(added);
    expect(builder.record).toBe(added.record);
    const committed = { ...added.record, ver: 4 };
    builder.reset(committed);
    expect(builder.record).toBe(committed);
  });

  it("knows its record's size only while the record is the one whose size the message measured", () => {
    const paged = { ...base, outcomePage: { page: 2, bytes: 10 } };
    const builder = new CommitBuilder(paged, roomy, { pagedOutcomes: true });
    expect(builder.recordBytes).toBeUndefined();
    const measured = { ...effects([]), record: paged, recordBytes: jsonSize(paged) };
    builder.add(measured);
    expect(builder.recordBytes).toBe(jsonSize(paged));
    builder.reset({ ...paged, ver: 4, outcomePage: { page: 3, bytes: 0 } });
    expect(builder.recordBytes).toBeUndefined();
    // Effects computed before that commit carry the closed page: the builder keeps the new one,
    // so the record it holds is not the one measured.
    builder.add(measured);
    expect(builder.record.outcomePage).toStrictEqual({ page: 3, bytes: 0 });
    expect(builder.recordBytes).toBeUndefined();
  });

  it('measures a paged outcome as its page entry, long key and all, beside the entries the page holds', () => {
    // A page of 1 KB nearly full of outcomes, and a reply as large as the store takes (its item
    // less a page), its idempotency key as long as a client may give it.
    const limits = { ...roomy, outcomePageBytes: 1024 };
    const paged = { ...base, outcomePage: { page: 0, bytes: 1000, sentAt: 5 } };
    const key = `ingress:${'k'.repeat(240)}`;
    const empty: IdempotencyRecord = {
      key,
      actorId: ACTOR,
      outcome: { ok: true, value: '' },
      expiresAt: 1,
    };
    const value = 'x'.repeat(limits.maxItemBytes - 1024 - jsonSize(empty));
    const large = {
      ...effects([]),
      record: paged,
      idempotency: { ...empty, outcome: { ok: true as const, value } },
    };
    // Its JSON and the page's fit the item; the page item, each key twice, does not.
    expect(jsonSize(large.idempotency) + 1000).toBeLessThanOrEqual(limits.maxItemBytes);
    expect(pageEntryBytes(large.idempotency) + 1000).toBeGreaterThan(limits.maxItemBytes);
    const builder = new CommitBuilder(paged, limits, { pagedOutcomes: true });
    expect(builder.fits(large)).toBe(false);
    // It fits a page of its own: the open page is closed in a commit of its own first.
    expect(builder.outgrowsPage(large)).toBe(true);
    builder.closePage();
    expect(builder.record.outcomePage).toStrictEqual({ page: 1, bytes: 0, closedSentAt: 5 });
    expect(builder.fits(large)).toBe(true);
    expect(builder.outgrowsPage(large)).toBe(false);
    builder.add(large);
    expect(builder.outcomeBytes).toBe(pageEntryBytes(large.idempotency));
    // Nothing pending is written to a page closed under it.
    expect(() => builder.closePage()).toThrow(/commit of its own/);
    // A store without pages measures the outcome as its own item, its JSON.
    const items = new CommitBuilder(base, limits);
    items.add({ ...large, record: base });
    expect(items.outcomeBytes).toBe(jsonSize(large.idempotency));
  });

  it('counts the room a record may grow by at its commit against the byte limit', () => {
    const recordBytes = jsonSize(base);
    const limits = { ...roomy, maxTransactionBytes: recordBytes + 10 };
    const builder = new CommitBuilder(base, limits);
    const growing = (recordGrowth: number) => ({ ...effects([]), recordBytes, recordGrowth });
    expect(builder.fits(growing(10))).toBe(true);
    expect(builder.fits(growing(11))).toBe(false);
  });

  it('fills the outbox items of a very long actor id right up to the item limit, and every one passes checkCommit', () => {
    // Multi-byte characters and characters JSON escapes count as checkCommit measures them.
    const longId = `sender/${'é'.repeat(300)}"\\\u0001${'k'.repeat(700)}`;
    const longBase: ActorRecord = { ...base, id: longId };
    const send = (n: number): Envelope => ({
      id: `${longId}:${n}`,
      from: longId,
      seq: n,
      to: 'target/b',
      name: 'note',
      payload: { n },
      sentAt: 0,
    });
    // Seven messages of two sends each, seqs 101–114 (envelopes of one size).
    const messages = Array.from({ length: 7 }, (_, m) => ({
      record: { ...longBase, sentSeq: 102 + 2 * m },
      envelopes: [send(101 + 2 * m), send(102 + 2 * m)],
      idempotency: undefined,
    }));
    const per = sizeOf(send(101));
    const overhead = outboxItemOverhead(longId, 101);
    expect(overhead).toBeGreaterThan(200); // the old fixed estimate fell short for such ids
    // The widest createdAt a clock can give (25 bytes of JSON): items measured at their largest.
    const widest = -0.0000012345678901234567;
    expect(JSON.stringify(widest)).toHaveLength(25);

    // Item limits around one to five envelopes, the exact fill of three, and the old estimate's.
    const itemLimits = [overhead + 3 * per, overhead + 3 * per - 1, 200 + 3 * per];
    for (let bytes = overhead + per; bytes <= overhead + 5 * per; bytes += 97) {
      itemLimits.push(bytes);
    }
    for (const maxItemBytes of itemLimits) {
      const limits = { ...roomy, maxItemBytes };
      for (const createdAt of [widest, Date.now(), 0]) {
        const builder = new CommitBuilder(longBase, limits);
        for (const message of messages) {
          expect(builder.fits(message)).toBe(true);
          builder.add(message);
        }
        const { outbox, idempotency } = builder.take(longId, createdAt);
        expect(outbox.flatMap((item) => item.envelopes)).toHaveLength(14);
        const commit = {
          record: { ...builder.record, ver: longBase.ver + 1 },
          expectedVer: longBase.ver,
          outbox,
          idempotency,
        };
        expect(() => checkCommit(commit, limits), `maxItemBytes ${maxItemBytes}`).not.toThrow();
        if (createdAt !== widest) continue;
        // Exact: every item but the last is full, one more envelope would pass the limit.
        for (const item of outbox.slice(0, -1)) {
          expect(jsonSize(item) + per).toBeGreaterThan(maxItemBytes);
        }
        if (maxItemBytes === overhead + 3 * per) {
          const full = maxItemBytes;
          expect(outbox.map(jsonSize)).toEqual([full, full, full, full, overhead + 2 * per]);
        }
      }
    }
  });

  it('never builds a commit past its limits when every message it took was said to fit', () => {
    const message = fc.record({
      sends: fc.array(fc.integer({ min: 0, max: 300 }), { maxLength: 8 }),
      idempotency: fc.boolean(),
    });
    fc.assert(
      fc.property(
        fc.array(message, { maxLength: 30 }),
        fc.integer({ min: 2, max: 12 }),
        fc.integer({ min: 900, max: 3000 }),
        fc.integer({ min: 2000, max: 20_000 }),
        (messages, maxTransactionItems, maxItemBytes, maxTransactionBytes) => {
          const limits = { maxTransactionItems, maxItemBytes, maxTransactionBytes };
          const builder = new CommitBuilder(base, limits);
          for (const m of messages) {
            const e = effects(
              m.sends.map((bytes) => envelope(bytes)),
              { idempotency: m.idempotency },
            );
            if (builder.fits(e)) builder.add(e);
          }
          const { outbox, idempotency } = builder.take(ACTOR, 0);
          const items = [builder.record, ...outbox, ...idempotency];
          expect(items.length).toBeLessThanOrEqual(maxTransactionItems);
          const sizes = items.map((item) => jsonSize(item));
          for (const size of sizes) expect(size).toBeLessThanOrEqual(maxItemBytes);
          expect(sizes.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(maxTransactionBytes);
        },
      ),
      { seed: 42, numRuns: 200 },
    );
  });
});

describe('CommitBuilder, over every kind of write a message adds', () => {
  /** One message's writes, drawn small so that limits of a few kilobytes bind often. */
  const write = fc.record({
    sends: fc.array(fc.integer({ min: 0, max: 200 }), { maxLength: 3 }),
    outcome: fc.constantFrom('none', 'new', 'replaces'),
    deadLetter: fc.option(fc.integer({ min: 0, max: 300 }), { nil: undefined }),
    redriven: fc.boolean(),
    marks: fc.array(
      fc.record({ peer: fc.integer({ min: 0, max: 3 }), bytes: fc.integer({ min: 0, max: 200 }) }),
      { maxLength: 2 },
    ),
    timers: fc.array(
      fc.record({
        id: fc.integer({ min: 0, max: 3 }),
        bytes: fc.option(fc.integer({ min: 0, max: 200 }), { nil: undefined }),
      }),
      { maxLength: 3 },
    ),
  });
  type Write = typeof write extends fc.Arbitrary<infer T> ? T : never;

  let unique = 0;
  /** The effects of a message; ids of outcomes, dead letters and redrives are never reused. */
  function effectsOf(w: Write): MessageEffects {
    const n = ++unique;
    const timers = new Map<string, Timer | null>();
    for (const t of w.timers) {
      const id = `t${t.id}`;
      timers.set(
        id,
        t.bytes === undefined
          ? null
          : {
              actorId: ACTOR,
              id,
              gen: `g${n}`,
              at: n,
              name: 'tick',
              payload: 'p'.repeat(t.bytes),
              createdAt: 0,
            },
      );
    }
    const marks = new Map<string, OverflowMark>();
    for (const m of w.marks) {
      const peer = `peer/${m.peer}`;
      marks.set(peer, {
        kind: 'sender',
        peer,
        mark: { seq: n, at: m.bytes, missing: [[0, m.bytes]] },
        expiresAt: 1,
      });
    }
    const failed: SerializedError = {
      code: ErrorCode.REJECTED,
      message: 'r'.repeat(w.deadLetter ?? 0),
      details: {},
    };
    return {
      ...effects(
        w.sends.map((bytes) => envelope(bytes)),
        {},
      ),
      idempotency:
        w.outcome === 'none'
          ? undefined
          : { key: `key-${n}`, actorId: ACTOR, outcome: { ok: true, value: n }, expiresAt: 1 },
      replacesOutcome: w.outcome === 'replaces',
      ...(w.deadLetter === undefined
        ? {}
        : {
            deadLetter: {
              actorId: ACTOR,
              messageId: `dead-${n}`,
              envelope: envelope(0),
              redrivable: true,
              error: failed,
              attempts: 3,
              at: 0,
            },
          }),
      ...(w.redriven ? { redriven: `redriven-${n}` } : {}),
      ...(marks.size > 0 ? { overflow: [...marks.values()] } : {}),
      ...(timers.size > 0 ? { timers } : {}),
    };
  }

  /** The commit a builder would write now, as a turn hands it to the store. */
  function commitOf(builder: CommitBuilder): Commit {
    const record = { ...builder.record, ver: builder.baseVer + 1 };
    return { expectedVer: builder.baseVer, record, ...builder.take(ACTOR, Date.now()) };
  }

  /** Whether `checkCommit` takes the commit of `messages` added to a fresh builder, all of them. */
  function accepted(messages: readonly MessageEffects[], limits: StoreLimits): boolean {
    const builder = new CommitBuilder(base, limits);
    for (const m of messages) builder.add(m);
    try {
      checkCommit(commitOf(builder), limits);
      return true;
    } catch {
      return false;
    }
  }

  it('says a message fits exactly when the commit with it passes checkCommit, with one cautious exception', () => {
    fc.assert(
      fc.property(
        fc.array(write, { minLength: 1, maxLength: 12 }),
        fc.integer({ min: 3, max: 14 }),
        fc.integer({ min: 1200, max: 2500 }),
        fc.integer({ min: 2500, max: 9000 }),
        (writes, maxTransactionItems, maxItemBytes, maxTransactionBytes) => {
          const limits = { maxTransactionItems, maxItemBytes, maxTransactionBytes };
          const builder = new CommitBuilder(base, limits);
          const taken: MessageEffects[] = [];
          const pendingMarks = new Set<string>();
          for (const w of writes) {
            const m = effectsOf(w);
            const fits = builder.fits(m);
            const passes = accepted([...taken, m], limits);
            // Said to fit: the store takes it. Said not to: the store would refuse it, unless the
            // message moves out again a mark the commit moves out already (its bytes are counted
            // twice, on the safe side).
            if (fits) expect(passes).toBe(true);
            const again = (m.overflow ?? []).some((mark) => pendingMarks.has(mark.peer));
            if (!fits && !again) expect(passes).toBe(false);
            if (fits) {
              builder.add(m);
              taken.push(m);
              for (const mark of m.overflow ?? []) pendingMarks.add(mark.peer);
            }
          }
          const commit = commitOf(builder);
          expect(() => checkCommit(commit, limits)).not.toThrow();
          // What was added is what the commit writes: each message's last word on a timer or a mark.
          expect(commit.outbox.flatMap((item) => item.envelopes)).toEqual(
            taken.flatMap((m) => m.envelopes),
          );
          expect(commit.idempotency.map((r) => r.key)).toEqual(
            taken.filter((m) => m.idempotency && !m.replacesOutcome).map((m) => m.idempotency!.key),
          );
          expect((commit.replaceIdempotency ?? []).map((r) => r.key)).toEqual(
            taken.filter((m) => m.idempotency && m.replacesOutcome).map((m) => m.idempotency!.key),
          );
          expect(commit.deadLetters?.put.map((d) => d.messageId) ?? []).toEqual(
            taken.flatMap((m) => (m.deadLetter ? [m.deadLetter.messageId] : [])),
          );
          expect(commit.deadLetters?.remove ?? []).toEqual(
            taken.flatMap((m) => (m.redriven ? [m.redriven] : [])),
          );
          const lastTimers = new Map<string, Timer | null>();
          const lastMarks = new Map<string, OverflowMark>();
          for (const m of taken) {
            for (const [id, timer] of m.timers ?? []) lastTimers.set(id, timer);
            for (const mark of m.overflow ?? []) lastMarks.set(mark.peer, mark);
          }
          expect(commit.timers?.put ?? []).toEqual(
            [...lastTimers.values()].filter((t) => t !== null),
          );
          expect(commit.timers?.remove ?? []).toEqual(
            [...lastTimers].flatMap(([id, t]) => (t ? [] : [id])),
          );
          expect(commit.overflow ?? []).toEqual([...lastMarks.values()]);
          // And the builder is empty for the next commit.
          expect(builder.take(ACTOR, 0)).toEqual({ outbox: [], idempotency: [] });
        },
      ),
      { seed: 7, numRuns: 300 },
    );
  });
});

describe('pruneMarks', () => {
  it('drops marks untouched since the cutoff and keeps the rest', () => {
    const marks = {
      'account/old': { seq: 4, at: 99 },
      'account/edge': { seq: 2, at: 100 },
      'account/new': { seq: 9, at: 150 },
    };
    expect(pruneMarks(marks, 100)).toEqual({
      'account/edge': { seq: 2, at: 100 },
      'account/new': { seq: 9, at: 150 },
    });
  });

  it('returns a new object when it drops one, leaving the input as it was', () => {
    const marks = Object.freeze({ 'account/a': Object.freeze({ seq: 1, at: 0 }) });
    const pruned = pruneMarks(marks, 10);
    expect(pruned).toEqual({});
    expect(pruned).not.toBe(marks);
    expect(marks).toEqual({ 'account/a': { seq: 1, at: 0 } });
  });

  it('returns the marks themselves when it drops none', () => {
    const marks = { 'account/a': { seq: 1, at: 10 } };
    expect(pruneMarks(marks, 10)).toBe(marks);
    expect(pruneMarks({ ...marks, 'account/b': { seq: 1, at: 9 } }, 10)).toEqual(marks);
  });
});
