/**
 * Per-channel bookkeeping (sender → target): how a receiver tells a message it already applied
 * from one that is missing. Every actor message carries its sender's `seq` (unique, increasing)
 * and `prev`, the `seq` of the sender's previous message to the same target. A receiver keeps
 * per sender the last `seq` it applied; a message whose `prev` is past that mark reveals a gap:
 * the messages in between left the inbox unapplied (a dead-letter queue, an expiry). The gap is
 * reported and remembered, so a missing message that arrives later (a redrive) is applied once,
 * never skipped as a duplicate.
 */
import type { Envelope } from '../adapter/envelope.ts';
import type { ChannelMark, SenderMark } from '../adapter/marks.ts';
import type { Writable } from '../shared/Writable.ts';

/**
 * How many gaps a sender's mark may list while the actor's record lists the mark: one with more
 * moves out to an overflow mark, an item of its own (see overflow.ts), so gaps never crowd the
 * record.
 */
export const RECORD_GAPS = 32;

/** Bytes one gap `[lo,hi],` takes at most in JSON (two safe integers). */
const GAP_BYTES = 36;

/**
 * How many gaps one sender's mark remembers: as many as fill half an item (about 5,500 with
 * DynamoDB's 400 KB). Past it the oldest is forgotten, and the engine logs an error.
 */
export function maxGaps(maxItemBytes: number): number {
  return Math.max(1, Math.floor(maxItemBytes / 2 / GAP_BYTES));
}

export type Arrival =
  /** Next on its channel (or the first one): apply it. */
  | { readonly kind: 'next' }
  /** Applied already: skip it. */
  | { readonly kind: 'duplicate' }
  /**
   * Later than a message that never arrived: apply it and remember `(lo, hi]` as missing.
   * `reopened`: the sender opened its channel (`prev` 0) past this mark, or with no mark here:
   * it may have forgotten an idle channel (after half the retention) on which it sent here
   * before, and what it sent then may lie in `(lo, hi]` — or nothing, and the gap is never filled.
   */
  | {
      readonly kind: 'gap';
      readonly missing: readonly [number, number];
      readonly reopened?: true;
    }
  /** A message that was missing: apply it now. */
  | { readonly kind: 'late' };

/** Classifies an actor message against the receiver's mark for its sender. */
export function classify(mark: SenderMark | undefined, envelope: Envelope): Arrival {
  const last = mark?.seq ?? 0;
  if (envelope.seq <= last) {
    const missing = mark?.missing?.some(([lo, hi]) => envelope.seq > lo && envelope.seq <= hi);
    return missing ? { kind: 'late' } : { kind: 'duplicate' };
  }
  const prev = envelope.prev ?? 0;
  if (prev > last) return { kind: 'gap', missing: [last, prev] };
  // prev 0 opens the channel: a first message, or one after the sender forgot an idle channel.
  // Then a message it sent here before, still on its way (a dead-letter queue's), lies between
  // this mark (or nothing: the receiver forgot its mark, or never had one) and this message: it
  // is remembered as missing, not taken for a duplicate later. A sender's first message of all
  // (seq 1) leaves nothing below it.
  if (envelope.prev === 0 && envelope.seq - 1 > last) {
    return { kind: 'gap', missing: [last, envelope.seq - 1], reopened: true };
  }
  return { kind: 'next' };
}

/**
 * The receiver's mark after applying (or rejecting) `envelope`, classified as `arrival`, at
 * `at`: the mark's time moves on to it, never back.
 */
export function markAfter(
  mark: SenderMark | undefined,
  envelope: Envelope,
  arrival: Arrival,
  at: number,
): SenderMark {
  let missing = [...(mark?.missing ?? [])];
  let seq = mark?.seq ?? 0;
  if (arrival.kind === 'late') {
    // The late message's own `prev` says nothing else of this channel lies in (prev, seq) — but
    // for `prev` 0, which opened the channel anew: what the sender sent on an earlier opening of
    // it, before it forgot the channel, may lie below, so only the message itself is removed.
    const prev = envelope.prev || envelope.seq - 1;
    missing = missing.flatMap(([lo, hi]): Array<[number, number]> => {
      if (envelope.seq <= lo || envelope.seq > hi) return [[lo, hi]];
      const parts: Array<[number, number]> = [];
      if (prev > lo) parts.push([lo, prev]);
      if (hi > envelope.seq) parts.push([envelope.seq, hi]);
      return parts;
    });
  } else {
    if (arrival.kind === 'gap') missing.push([...arrival.missing]);
    seq = envelope.seq;
  }
  const next: Writable<SenderMark> = { seq, at: Math.max(mark?.at ?? at, at) };
  // What the mark forgot stays forgotten: no message tells it again.
  if (mark?.forgottenUpTo !== undefined) next.forgottenUpTo = mark.forgottenUpTo;
  if (missing.length === 0) return next;
  next.missing = missing;
  // A gap opened with no mark spans what the receiver may have applied before it forgot one.
  const opened = mark === undefined && arrival.kind === 'gap' ? arrival.missing[1] : undefined;
  const unproven = opened ?? mark?.unprovenUpTo;
  if (unproven !== undefined && missing.some(([lo]) => lo < unproven)) next.unprovenUpTo = unproven;
  return next;
}

/**
 * Whether `mark` tells whether `envelope` was applied, whatever its age: not for a message in a
 * gap the mark opened with no mark before it (see {@link SenderMark.unprovenUpTo}).
 */
export function markProves(mark: SenderMark | undefined, envelope: Envelope): boolean {
  return mark !== undefined && envelope.seq > (mark.unprovenUpTo ?? 0);
}

/**
 * `mark` with at most `limit` gaps, and the oldest ones it had to forget to get there (the
 * lowest: gaps open in the order of their seqs). The mark keeps the top of the last one
 * forgotten ({@link SenderMark.forgottenUpTo}).
 */
export function forgetOldestGaps(
  mark: SenderMark,
  limit: number,
): { readonly mark: SenderMark; readonly forgotten: ReadonlyArray<readonly [number, number]> } {
  const missing = mark.missing ?? [];
  if (missing.length <= limit) return { mark, forgotten: [] };
  const cut = missing.length - limit;
  const forgotten = missing.slice(0, cut);
  const forgottenUpTo = forgotten[cut - 1]![1];
  return { mark: { ...mark, missing: missing.slice(cut), forgottenUpTo }, forgotten };
}

/**
 * Whether `envelope`, which `mark` takes for a copy ({@link classify}: a duplicate), lies where
 * the mark forgot its gaps: it may as well be a missing message, so it is kept, not skipped.
 */
export function inForgottenGaps(mark: SenderMark | undefined, envelope: Envelope): boolean {
  return envelope.seq <= (mark?.forgottenUpTo ?? 0);
}

/**
 * Marks (a receiver's of its senders, a sender's channels to its targets) without those idle
 * since `before`: a new object, or `marks` itself when none goes (most messages: records are
 * never changed in place). A channel forgotten so opens anew with its next message.
 */
export function pruneIdle<T extends { readonly at: number }>(
  marks: Readonly<Record<string, T>> | undefined,
  before: number,
): Readonly<Record<string, T>> {
  if (marks && !Object.values(marks).some((mark) => mark.at < before)) return marks;
  const kept: Record<string, T> = {};
  for (const [peer, mark] of Object.entries(marks ?? {})) {
    if (mark.at >= before) kept[peer] = mark;
  }
  return kept;
}

/** Channels to targets, with those idle since `before` forgotten (see {@link pruneIdle}). */
export const pruneChannels: (
  channels: Readonly<Record<string, ChannelMark>> | undefined,
  before: number,
) => Readonly<Record<string, ChannelMark>> = pruneIdle;

/**
 * Drops marks untouched since `before` (DESIGN: marks stay bounded): a new object, or `marks`
 * itself when none is dropped (see {@link pruneIdle}).
 */
export const pruneMarks: (
  marks: Readonly<Record<string, SenderMark>>,
  before: number,
) => Readonly<Record<string, SenderMark>> = pruneIdle;
