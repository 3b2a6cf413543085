import {
  type ActorRecord,
  actorMessageId,
  decodeEnvelope,
  INGRESS,
  isActorSender,
  type QueueMessage,
} from '@baton/core/adapter';

/**
 * Copies of messages sent before a retention jump, kept aside as the inbox's dead-letter queue
 * keeps a copy a worker committed and never acknowledged, and redriven after it: SQS FIFO
 * restarts a message's retention when it moves to the dead-letter queue and back, so such a
 * copy may come back any time later — after its receiver's mark was pruned, after its sender
 * halted and began a new life that numbers its messages from 1 again. Every message sent before
 * a jump was processed by then (a jump waits until nothing is in flight), so each copy must be
 * skipped, or kept as an engine dead letter (too old to tell), and never applied again; the
 * run's operator, who knows that, never redrives such a letter.
 *
 * A client's message is not kept aside: its proof is its outcome, kept for the idempotency
 * retention (14 days), and a halted actor's outcomes go with its record, twice the mark
 * retention after its last message — 2 days in a run, a combination the engine refuses
 * outside a run (`allowShortMarkRetention`: keep the idempotency retention at most twice the
 * mark retention), so a late copy of a client's message could rightly be applied again by the
 * actor's next life.
 */
export class LateCopies {
  readonly #aside: QueueMessage[] = [];
  /** Message ids of the copies redriven so far. */
  readonly #redriven = new Set<string>();

  /**
   * @param chance that a retention jump keeps copies aside (`Faults.lateRedrive`)
   * @param most copies kept aside at once (`Faults.lateRedriveBudget`)
   */
  constructor(
    readonly chance: number,
    readonly most: number,
  ) {}

  /** Copies waiting to be redriven. */
  get waiting(): number {
    return this.#aside.length;
  }

  /** Message ids of the copies redriven so far. */
  get redriven(): ReadonlySet<string> {
    return this.#redriven;
  }

  /**
   * Time jumps past the retention: maybe keeps aside a few copies of the actors' messages and
   * timers' fires the queue accepted before it (`history`), up to {@link most} in all, drawn
   * with `rng` — first among those whose sender's life has ended (its record is gone now).
   */
  keepAside(
    history: readonly QueueMessage[],
    accepted: ReadonlySet<string>,
    records: readonly ActorRecord[],
    rng: () => number,
  ): void {
    if (this.most === 0 || rng() >= this.chance) return;
    const candidates = history.filter(
      (m) => accepted.has(m.dedupeId) && decodeEnvelope(m.body)?.from !== INGRESS,
    );
    const ended = candidates.filter((m) => ofEndedLife(records, m.body));
    for (const from of [ended, candidates]) {
      while (this.#aside.length < this.most && from.length > 0) {
        const [copy] = from.splice(Math.floor(rng() * from.length), 1);
        if (!this.#aside.includes(copy!)) this.#aside.push(copy!);
      }
    }
  }

  /** Takes a copy out to redrive, drawn with `rng`, and books its message id. */
  take(rng: () => number): QueueMessage {
    const [copy] = this.#aside.splice(Math.floor(rng() * this.#aside.length), 1);
    const envelope = decodeEnvelope(copy!.body);
    if (envelope) this.#redriven.add(envelope.id);
    return copy!;
  }
}

/**
 * Whether `body` is an actor's message from a life of its sender that has ended: `records`, the
 * committed records now, hold another life of the sender, or none.
 */
export function ofEndedLife(records: readonly ActorRecord[], body: string): boolean {
  const envelope = decodeEnvelope(body);
  // An effect's or an engine actor's (`$…`) sender keeps no record of its own.
  if (!envelope || !isActorSender(envelope) || envelope.seq === 0) return false;
  if (envelope.from.startsWith('$')) return false;
  const sender = records.find((record) => record.id === envelope.from);
  return !sender || envelope.id !== actorMessageId(envelope.from, envelope.seq, sender.life);
}
