/**
 * The newest version delivered per actor, for the actors seen most recently (a bounded map in
 * least-recently-updated order): a stream read twice, or re-read after an expired iterator,
 * must not hand a consumer a version it already has.
 *
 * @example
 * const latest = new LatestVersions(100_000);
 * if (latest.advance(record.id, record.ver)) deliver(record);
 */
export class LatestVersions {
  readonly #versions = new Map<string, number>();

  constructor(private readonly max: number) {}

  /** True (and remembered) if `ver` is newer than the last one recorded for `actorId`. */
  advance(actorId: string, ver: number): boolean {
    const last = this.#versions.get(actorId);
    if (last !== undefined && ver <= last) return false;
    this.#versions.delete(actorId);
    this.#versions.set(actorId, ver);
    if (this.#versions.size > this.max) {
      const oldest = this.#versions.keys().next().value;
      if (oldest !== undefined) this.#versions.delete(oldest);
    }
    return true;
  }

  get size(): number {
    return this.#versions.size;
  }
}
