import type { JsonValue } from '@baton/protocol';

/**
 * Recent query results by instance and content hash, so that a client resuming with the hash of
 * the value it holds can be sent a patch instead of the whole value — also after the instance
 * was dropped while it was away. A hash names a value (128 bits of SHA-256 of its canonical
 * JSON), and keys include the instance's identity scope, so a value is only ever a patch base
 * for the scope it came from. Bounded: the least recently used entries go first.
 *
 * @example
 * const cache = new ResultCache(256);
 * cache.remember(subscription.instance, update.hash, update.value);
 * cache.lookup(subscription.instance, resume.hash); // the value the client holds, if known
 */
export class ResultCache {
  readonly #entries = new Map<string, JsonValue>();

  constructor(readonly maxEntries = 256) {}

  get size(): number {
    return this.#entries.size;
  }

  remember(instance: string, hash: string, value: unknown): void {
    const key = `${hash}\u0000${instance}`;
    if (this.#entries.has(key)) this.#entries.delete(key);
    this.#entries.set(key, value as JsonValue);
    if (this.#entries.size > this.maxEntries) {
      this.#entries.delete(this.#entries.keys().next().value!);
    }
  }

  lookup(instance: string, hash: string): JsonValue | undefined {
    const key = `${hash}\u0000${instance}`;
    const value = this.#entries.get(key);
    if (value === undefined) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, value);
    return value;
  }
}
