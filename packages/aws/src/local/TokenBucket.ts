/**
 * A token bucket, as API Gateway limits the calls of an account: `perSecond` tokens flow in,
 * up to `burst`, and each call takes one.
 *
 * @example
 * const posts = new TokenBucket(10_000, 5_000);
 * if (!posts.take()) refuse(429);
 */
export class TokenBucket {
  #tokens: number;
  #filledAt = performance.now();

  constructor(
    readonly perSecond: number,
    readonly burst: number,
  ) {
    this.#tokens = burst;
  }

  /** Takes a token; false when the bucket is empty. */
  take(): boolean {
    const now = performance.now();
    this.#tokens = Math.min(
      this.burst,
      this.#tokens + ((now - this.#filledAt) / 1000) * this.perSecond,
    );
    this.#filledAt = now;
    if (this.#tokens < 1) return false;
    this.#tokens--;
    return true;
  }
}
