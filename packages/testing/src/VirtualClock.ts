import type { Clock } from '@baton/core/adapter';

/**
 * Time that moves only when told to: the simulation's clock, shared by the engine and the
 * embedded backend, so visibility timeouts and dedupe windows expire exactly when a schedule says.
 *
 * @example
 * const clock = new VirtualClock();
 * clock.advance(31_000); // every 30-second visibility timeout has now expired
 */
export class VirtualClock implements Clock {
  #now: number;

  constructor(start = Date.UTC(2026, 0, 1)) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  advance(ms: number): void {
    if (!(ms >= 0)) throw new RangeError(`time moves forward only; got ${ms} ms`);
    this.#now += ms;
  }

  /** Moves to `time` if it lies ahead. */
  advanceTo(time: number): void {
    if (time > this.#now) this.#now = time;
  }
}
