import type { IndexedSetItem } from './IndexedSet.ts';
import type { MessageGroup } from './MessageGroup.ts';

/**
 * A message in the queue. `n` is its sequence number; the rest of the delivery state is volatile.
 * A class, so that every message has one shape however it came in (a send, a replay, a redrive).
 */
export class StoredMessage implements IndexedSetItem {
  readonly n: number;
  readonly group: string;
  readonly dedupeId: string;
  readonly body: string;
  readonly sentAt: number;
  /** The group that holds it (the one named `group` when it was added). */
  readonly home: MessageGroup;
  /** Receivable from this time on (0: never received). */
  visibleAt = 0;
  receiveCount = 0;
  /** The receipt of the latest delivery. */
  receipt: string | undefined = undefined;
  /** When the latest delivery was received: SQS's 12 hours of visibility run from it. */
  receivedAt = 0;
  /** Set once it left the queue (acked, dead-lettered or expired). */
  removed = false;
  /** Its place among its group's `touched` messages, if it is one. */
  setIndex = -1;

  constructor(
    sent: { n: number; group: string; dedupeId: string; body: string },
    sentAt: number,
    home: MessageGroup,
  ) {
    this.n = sent.n;
    this.group = sent.group;
    this.dedupeId = sent.dedupeId;
    this.body = sent.body;
    this.sentAt = sentAt;
    this.home = home;
  }
}
