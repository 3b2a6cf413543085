import { type ActorRecord, actorMessageId, decodeEnvelope, type Store } from '@baton/core/adapter';

/**
 * Checks, while a simulation runs, the invariants that are visible only in flight:
 * I2 (no send before commit) and I5 (fencing). The rest are checked on the final state.
 */
export class InvariantMonitor {
  readonly violations: string[] = [];
  readonly #last = new Map<string, { readonly ver: number; readonly life?: string }>();
  /**
   * Actor messages seen committed by their senders: a copy redriven late may come after its
   * sender's record expired, with no new life yet.
   */
  readonly #committed = new Set<string>();

  /**
   * I5: each life of an actor goes 1, 2, 3 … — no two commits from the same version. A new life
   * (after `ctx.halt()` and the record's deletion) starts at 1 again, under a new life id.
   */
  committed(record: ActorRecord): void {
    const last = this.#last.get(record.id);
    const sameLife = last !== undefined && last.life === record.life;
    const expected = sameLife ? last.ver + 1 : 1;
    if (record.ver !== expected) {
      this.violations.push(
        `I5 violated: ${record.id} committed version ${record.ver} of life ${record.life} after ${last?.ver ?? 0} of ${last?.life}`,
      );
    }
    this.#last.set(record.id, { ver: record.ver, ...(record.life ? { life: record.life } : {}) });
  }

  /** I2: an actor message reaching a worker was committed by its sender. */
  async received(store: Store, body: string): Promise<void> {
    const envelope = decodeEnvelope(body);
    if (!envelope || envelope.seq === 0 || this.#committed.has(envelope.id)) return;
    const sender = await store.load(envelope.from);
    // A message of an earlier life of its sender: that life's record is gone.
    if (sender && envelope.id !== actorMessageId(envelope.from, envelope.seq, sender.life)) return;
    if (!sender || sender.sentSeq < envelope.seq) {
      this.violations.push(
        `I2 violated: ${envelope.id} reached ${envelope.to} before its sender committed it`,
      );
    } else this.#committed.add(envelope.id);
  }
}
