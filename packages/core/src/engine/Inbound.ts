import type { Envelope } from '../adapter/envelope.ts';

/** One inbox message as the engine sees it. */
export interface Inbound {
  readonly envelope: Envelope;
  /** The queue's sequence number: compared with the record's inbox offset. */
  readonly queueSeq: string;
  /** Deliveries of this message so far (the queue's receive count). @default 1 */
  readonly receiveCount?: number;
  /** The identity of the queue it came from (`Queue.identity`), when the queue has one. */
  readonly queue?: string;
}
