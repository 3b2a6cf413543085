/** A message in the queue. `n` is its sequence number; the rest of the delivery state is volatile. */
export interface StoredMessage {
  readonly n: number;
  readonly group: string;
  readonly dedupeId: string;
  readonly body: string;
  readonly sentAt: number;
  /** Receivable from this time on (0: never received). */
  visibleAt: number;
  receiveCount: number;
  /** The receipt of the latest delivery. */
  receipt: string | undefined;
}
