import { type ActorRecord, decodeEnvelope, type Store } from '@baton/core/adapter';

/**
 * Checks, while a simulation runs, the invariants that are visible only in flight:
 * I2 (no send before commit) and I5 (fencing). The rest are checked on the final state.
 */
export class InvariantMonitor {
  readonly violations: string[] = [];
  readonly #lastVer = new Map<string, number>();

  /** I5: each actor's versions go 1, 2, 3 … — no two commits from the same version. */
  committed(record: ActorRecord): void {
    const last = this.#lastVer.get(record.id) ?? 0;
    if (record.ver !== last + 1) {
      this.violations.push(
        `I5 violated: ${record.id} committed version ${record.ver} after ${last}`,
      );
    }
    this.#lastVer.set(record.id, record.ver);
  }

  /** I2: an actor message reaching a worker was committed by its sender. */
  async received(store: Store, body: string): Promise<void> {
    const envelope = decodeEnvelope(body);
    if (!envelope || envelope.seq === 0) return;
    const sender = await store.load(envelope.from);
    if (!sender || sender.sentSeq < envelope.seq) {
      this.violations.push(
        `I2 violated: ${envelope.id} reached ${envelope.to} before its sender committed it`,
      );
    }
  }
}
