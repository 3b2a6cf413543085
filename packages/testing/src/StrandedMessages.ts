import { decodeEnvelope, isActorSender, type Queue, type QueueMessage } from '@baton/core/adapter';

/** A message stranded in the dead-letter queue, and whether time jumped while it waited. */
interface Stranded {
  readonly message: QueueMessage;
  acrossJump: boolean;
}

/**
 * Actor messages the inbox moved to its dead-letter queue before any worker applied them (the
 * `strand` fault), until the run redrives them: SQS FIFO restarts a message's retention on each
 * move, so one may wait there longer than its channel's bookkeeping lives — its sender forgets
 * an idle channel after half the mark retention and opens it anew, its receiver forgets an
 * idle sender's mark after all of it. Each must still be applied exactly once. Its sender's
 * drain saw it accepted, as SQS accepted it; its receiver's next messages from the sender open
 * a gap for it.
 */
export class StrandedMessages {
  readonly #waiting: Stranded[] = [];
  /** The channels (`from→to`) of the messages stranded so far. */
  readonly #channels = new Set<string>();
  /** When each message was stranded, by message id. */
  readonly #strandedAt = new Map<string, number>();
  /**
   * Stranded messages a drain sent again past the queue's dedupe window (a crash before the
   * outbox delete, a long pause): that copy reached the inbox, and may have been applied.
   */
  readonly #delivered = new Set<string>();

  /**
   * @param chance per actor message sent that it is stranded (`Faults.strand`)
   * @param most messages stranded in a run (`Faults.strandBudget`)
   */
  constructor(
    readonly chance: number,
    readonly most: number,
  ) {}

  /** Messages waiting to be redriven. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /** Of those, the ones that waited across a time jump. */
  get aged(): number {
    return this.#waiting.filter((stranded) => stranded.acrossJump).length;
  }

  /**
   * Whether message `messageId`, whose letter was kept as too old to tell, may have been applied:
   * a copy of it reached the inbox, or (`forgottenGaps`: kept where its receiver's mark forgot
   * the channel's gaps, where a copy of a message applied is kept too) this run never stranded it.
   */
  mayBeApplied(messageId: string, forgottenGaps: boolean): boolean {
    return this.#delivered.has(messageId) || (forgottenGaps && !this.#strandedAt.has(messageId));
  }

  /**
   * Stranded messages a copy of which reached the inbox too (sent again past the dedupe window):
   * not known never to have been applied.
   */
  get deliveredIds(): ReadonlySet<string> {
    return this.#delivered;
  }

  /**
   * Of `messages` a drain sends at `now`, those the inbox takes; the rest, drawn with `rng`
   * among the actors' messages new to the queue (`accepted` holds the dedupe ids it took
   * before; not a redrive's, not a timer's fire), are stranded. A stranded message sent again
   * within `dedupeWindowMs` is a duplicate the queue drops, as SQS FIFO does.
   */
  sift(
    messages: readonly QueueMessage[],
    accepted: ReadonlySet<string>,
    rng: () => number,
    time: { readonly now: number; readonly dedupeWindowMs: number },
  ): QueueMessage[] {
    if (this.chance === 0) return [...messages];
    return messages.filter((message) => {
      const envelope = decodeEnvelope(message.body);
      const actorMessage =
        envelope !== undefined &&
        isActorSender(envelope) &&
        envelope.seq > 0 &&
        envelope.redrive === undefined &&
        envelope.timer === undefined;
      if (!actorMessage) return true;
      const strandedAt = this.#strandedAt.get(envelope.id);
      if (strandedAt !== undefined) {
        if (time.now - strandedAt < time.dedupeWindowMs) return false;
        this.#delivered.add(envelope.id);
        return true;
      }
      if (accepted.has(message.dedupeId) || this.#strandedAt.size >= this.most) return true;
      if (!(rng() < this.chance)) return true;
      this.#strandedAt.set(envelope.id, time.now);
      this.#channels.add(`${envelope.from}→${envelope.to}`);
      this.#waiting.push({ message, acrossJump: false });
      return false;
    });
  }

  /** The channels (`from→to`) a message of which was stranded: redriven, it comes late. */
  get channels(): ReadonlySet<string> {
    return this.#channels;
  }

  /** Time jumped: every message waiting now waited across it. */
  jumped(): void {
    for (const stranded of this.#waiting) stranded.acrossJump = true;
  }

  /**
   * Redrives one waiting message, drawn with `rng` (among the {@link aged} ones if `aged`), into
   * `queue` under a fresh dedupe id (`n` tells the redrives apart), as an operator redrives the
   * dead-letter queue.
   * @returns whether it waited across a time jump
   */
  async redrive(queue: Queue, rng: () => number, n: number, aged: boolean): Promise<boolean> {
    const from = aged ? this.#waiting.filter((stranded) => stranded.acrossJump) : this.#waiting;
    const stranded = from[Math.floor(rng() * from.length)]!;
    this.#waiting.splice(this.#waiting.indexOf(stranded), 1);
    const { message, acrossJump } = stranded;
    await queue.send([{ ...message, dedupeId: `${message.dedupeId}~dlq${n}` }]);
    return acrossJump;
  }
}
