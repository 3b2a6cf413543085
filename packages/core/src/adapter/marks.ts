/**
 * The marks of a channel (sender → target) as a backend keeps them: a receiver's of each sender
 * ({@link SenderMark}), a sender's of each target ({@link ChannelMark}), and those moved out of a
 * record into items of their own ({@link OverflowMark}). See `engine/channels.ts`.
 */

/**
 * What a receiver knows about one actor sender: the highest `seq` it applied from it, when that
 * moved, and the messages announced missing by a gap on the channel, not applied yet.
 */
export interface SenderMark {
  readonly seq: number;
  readonly at: number;
  /**
   * Ranges `[lo, hi]` (exclusive of `lo`, inclusive of `hi`) of the sender's seqs that may be
   * messages to this actor which never arrived in order (e.g. they went to a dead-letter queue).
   * One arriving later is applied, not skipped as a duplicate. Absent when there is no gap.
   */
  readonly missing?: ReadonlyArray<readonly [number, number]>;
  /**
   * Set on a mark made by a gap when the receiver had none (it forgot an idle sender, or never
   * heard from it): the gap's top. Seqs at or below it may be messages applied under a mark since
   * forgotten, so one in a gap there is told by its age, not taken as missing (see
   * `outlivedItsProof`). Dropped once no gap reaches below it.
   */
  readonly unprovenUpTo?: number;
  /**
   * Set once the mark had more gaps than it holds and forgot the oldest: the top of the last one
   * forgotten. A seq at or below it in no gap listed may be a missing message or a copy of one
   * applied, which the mark cannot tell apart: it is kept as a dead letter, neither applied nor
   * skipped (see `inForgottenGaps`).
   */
  readonly forgottenUpTo?: number;
}

/** What a sender knows about one target: the last `seq` it sent there (the next one's `prev`). */
export interface ChannelMark {
  readonly seq: number;
  readonly at: number;
}

/**
 * A peer's mark moved out of a record that lists too many peers, into an item of its own: a
 * receiver's {@link SenderMark} or a sender's {@link ChannelMark}. The engine reads one back only
 * for a peer its record does not list, so marks never make a record too large to write.
 */
export type OverflowMark = (
  | { readonly kind: 'sender'; readonly mark: SenderMark }
  | { readonly kind: 'channel'; readonly mark: ChannelMark }
  /** A page of the actor's state moved out for good (a workflow's older history), as JSON. */
  | { readonly kind: 'page'; readonly mark: unknown }
) & {
  /** The sender (for `sender`) or target (for `channel`) actor id; the page's id. */
  readonly peer: string;
  /** When a store may forget it (the engine ignores one past the mark retention anyway). */
  readonly expiresAt: number;
};

/** Which overflow mark to read. */
export interface OverflowKey {
  readonly kind: OverflowMark['kind'];
  readonly peer: string;
}
