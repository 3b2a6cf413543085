/**
 * Room in an actor's record: the marks of its least recent peers moved out into overflow items
 * so the record stays within the item limit, and, for a message whose commit cannot hold those
 * moves, fewer of them or a commit of its own that makes the room first.
 */
import { jsonSize } from '../adapter/conflicts.ts';
import type { OverflowMark } from '../adapter/marks.ts';
import type { ActorRecord } from '../adapter/storedRecords.ts';
import type { MessageEffects } from './commitParts.ts';
import { apartMarkGrowth } from './commitPlacement.ts';
import type { TurnEngine } from './createEngine.ts';
import { boundPeers, listed, withoutMarks } from './overflow.ts';
import { pageStateGrowth } from './pageStateGrowth.ts';

/**
 * The record part of a message's effects: `unbounded` with the marks of its least recent peers
 * moved out (see overflow.ts), its size and the room it may grow by at its commit (its outcome
 * page state, and the mark of sends apart), and what moved. `moves` caps the moves the count
 * limit asks for.
 */
export function withRecord(
  engine: TurnEngine,
  unbounded: ActorRecord,
  moves?: number,
  now = engine.clock.now(),
) {
  const reserve = commitGrowth(unbounded);
  const { record, moved, bytes } = boundPeers(unbounded, {
    now,
    retentionMs: engine.markRetentionMs,
    maxItemBytes: engine.store.limits.maxItemBytes - reserve,
    recordPeers: engine.recordPeers,
    moves,
  });
  return { record, recordBytes: bytes, recordGrowth: reserve, unbounded, overflow: moved };
}

/**
 * What the commit adds to `record` after the turn measured it: the page state, the mark of sends
 * apart, and a digit when its version number gains one (9 to 10).
 */
export const commitGrowth = (record: ActorRecord) =>
  pageStateGrowth(record) + apartMarkGrowth(record) + versionGrowth(record);

/** What the commit's version number (the record's next) adds to the record's size. */
const versionGrowth = (record: ActorRecord) => jsonSize(record.ver + 1) - jsonSize(record.ver);

/**
 * `effects` with only the moves the item limit forces, for a message too large for a commit
 * with them: the record lists more peers than it should until a later message moves them.
 */
export function withFewerMoves(engine: TurnEngine, effects: MessageEffects): MessageEffects {
  if (!effects.unbounded || !effects.overflow?.length) return effects;
  // Pages of state are the handler's, not marks: they stay.
  const pages = effects.overflow.filter((mark) => mark.kind === 'page');
  const fewer = withRecord(engine, effects.unbounded, 0);
  return { ...effects, ...fewer, overflow: [...fewer.overflow, ...pages] };
}

/**
 * For a message whose commit cannot hold the marks the item limit forces it to move out, or the
 * pages of state its handler put (a workflow that journaled thousands of commands in one turn): a
 * commit of its own, first, that moves up to `most` of those marks out of `current` (the record
 * before the message, otherwise unchanged: marks are found in the overflow as in the record), or,
 * once none is left, writes up to `most` of those pages ahead, and the message's effects on the
 * record without them. A page written ahead is read by no one until the message's commit counts
 * it, and a message done again puts its pages again. `fitsWithoutPages` says whether the
 * message's commit would fit without its pages: else writing them ahead would not help it.
 * Undefined when none can go first.
 */
export function roomFirst(
  engine: TurnEngine,
  current: ActorRecord,
  effects: MessageEffects,
  most: number,
  fitsWithoutPages: (effects: MessageEffects) => boolean,
): { room: MessageEffects; effects: MessageEffects } | undefined {
  const { unbounded, overflow = [] } = effects;
  if (!unbounded) return undefined;
  // Only marks the message leaves as they were: the message's own move with it. None when
  // `most` is 0 (a transaction of one item holds the record alone).
  const marks = overflow.filter((moved) => sameMark(current, moved)).slice(0, most);
  const first =
    marks.length > 0 ? marks : pagesAhead(engine, current, effects, most, fitsWithoutPages);
  if (first.length === 0) return undefined;
  const now = engine.clock.now();
  const retentionMs = engine.markRetentionMs;
  const room: MessageEffects = {
    record: withoutMarks(current, first, now, retentionMs),
    envelopes: [],
    idempotency: undefined,
    overflow: first,
  };
  // Measured at the version the room's commit leaves: the message commits one after it.
  const after = { ...withoutMarks(unbounded, first, now, retentionMs), ver: current.ver + 1 };
  const rest = withRecord(engine, after, 0);
  const ahead = new Set(first);
  const pages = overflow.filter((mark) => mark.kind === 'page' && !ahead.has(mark));
  return { room, effects: { ...effects, ...rest, overflow: [...rest.overflow, ...pages] } };
}

/**
 * The pages of state (not their drops: the record still counts what they forget) that a commit
 * of `current` alone can write ahead of the message: at most `most`, within the transaction's
 * bytes. None when the message's commit would not fit without its pages either.
 */
function pagesAhead(
  engine: TurnEngine,
  current: ActorRecord,
  effects: MessageEffects,
  most: number,
  fitsWithoutPages: (effects: MessageEffects) => boolean,
): OverflowMark[] {
  const { overflow = [] } = effects;
  const isPut = (mark: OverflowMark) => mark.kind === 'page' && mark.mark !== null;
  const pages = overflow.filter(isPut);
  if (pages.length === 0) return [];
  // The message's commit still deletes the pages it drops.
  const rest = overflow.filter((mark) => !isPut(mark));
  if (!fitsWithoutPages({ ...effects, overflow: rest })) return [];
  // The room's record, its version a digit longer at most, and the pages.
  let bytes = jsonSize(current) + 1;
  const first: OverflowMark[] = [];
  for (const page of pages) {
    if (first.length >= most) break;
    bytes += jsonSize(page);
    if (bytes > engine.store.limits.maxTransactionBytes) break;
    first.push(page);
  }
  return first;
}

function sameMark(record: ActorRecord, moved: OverflowMark): boolean {
  const mark = listed(record, moved);
  return mark !== undefined && JSON.stringify(mark) === JSON.stringify(moved.mark);
}
