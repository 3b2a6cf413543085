/**
 * The pushes of a connection whose client acks by the count of frames it read
 * (`baton.v1.received`), not per subscription: each push is kept with the number of the frame
 * that carried it, and a `received` of n acks, in the order they were written, the pushes of
 * the first n frames. A push is acked once, and only while its stream still awaits it.
 *
 * @example
 * const acks = new ReceivedAcks();
 * acks.wrote(3, stream, 7, streams); // stream's version 7 went out in frame 3
 * acks.received(3); // stream.ack(7)
 */
import type { SubscriptionStream } from './SubscriptionStream.ts';

/** A push that awaits its ack. */
interface Unacked {
  /** The number of the frame that carried it, counted from 1 on the socket. */
  readonly frames: number;
  readonly stream: SubscriptionStream;
  readonly version: number;
}

export class ReceivedAcks {
  /** The pushes awaiting their acks, in the order they were written. */
  #unacked: Unacked[] = [];

  /**
   * A push of `stream` (its `version`) went out in frame `frame`: it waits for a `received`
   * past it. `streams` are the connection's open streams, by id.
   */
  wrote(
    frame: number,
    stream: SubscriptionStream,
    version: number,
    streams: ReadonlyMap<string, SubscriptionStream>,
  ): void {
    // Only an open stream's push in flight waits for anything: drop the others (of closed
    // streams, or acked per id) before they pile up behind a client that never counts.
    if (this.#unacked.length > 2 * streams.size + 64) {
      this.#unacked = this.#unacked.filter(
        (push) =>
          streams.get(push.stream.id) === push.stream && push.stream.awaiting === push.version,
      );
    }
    this.#unacked.push({ frames: frame, stream, version });
  }

  /** The client read the first `frames` frames: the pushes they carried are acknowledged. */
  received(frames: number): void {
    let read = 0;
    while (read < this.#unacked.length && this.#unacked[read]!.frames <= frames) read++;
    if (read === 0) return;
    // Acks can send held results, which append to the list: take the read ones out first.
    const acked = this.#unacked.splice(0, read);
    for (const push of acked) push.stream.ack(push.version);
  }

  /** Forgets every push: the connection closed. */
  clear(): void {
    this.#unacked = [];
  }
}
