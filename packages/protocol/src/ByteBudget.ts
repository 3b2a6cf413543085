/**
 * Bytes that several holders share a limit of: each takes what it holds and gives it back when
 * it lets go. A server gives one to all its connections' {@link ChunkAssembler}s, so that the
 * chunks of messages still arriving hold no more memory in all than it allows, however many
 * connections send them.
 *
 * @example
 * const budget = new ByteBudget(64 * 1024 * 1024);
 * const assembler = new ChunkAssembler({ shared: budget });
 */
export class ByteBudget {
  readonly limit: number;
  #used = 0;

  constructor(limit: number) {
    this.limit = limit;
  }

  /** The bytes taken and not given back. */
  get used(): number {
    return this.#used;
  }

  /** Takes `bytes` if they fit under the limit, and says whether they did. */
  take(bytes: number): boolean {
    if (this.#used + bytes > this.limit) return false;
    this.#used += bytes;
    return true;
  }

  /** Gives back `bytes` taken before. */
  give(bytes: number): void {
    this.#used = Math.max(0, this.#used - bytes);
  }
}
