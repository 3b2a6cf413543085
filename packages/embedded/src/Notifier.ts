/**
 * Synchronous fan-out that keeps order: a value emitted by a listener (e.g. a listener that
 * commits) is delivered after the current one has reached every listener, so all listeners see
 * values in emit order.
 */
export class Notifier<T> {
  readonly #listeners = new Set<(value: T) => void>();
  readonly #pending: T[] = [];
  readonly #copy: (value: T) => T;
  readonly #onError: (error: unknown) => void;
  #draining = false;

  constructor(copy: (value: T) => T, onError: (error: unknown) => void) {
    this.#copy = copy;
    this.#onError = onError;
  }

  get size(): number {
    return this.#listeners.size;
  }

  subscribe(listener: (value: T) => void): () => void {
    // Wrap so that the same function subscribed twice gets two independent subscriptions.
    const entry = (value: T) => listener(value);
    this.#listeners.add(entry);
    return () => {
      this.#listeners.delete(entry);
    };
  }

  emit(value: T): void {
    if (this.#listeners.size === 0) return;
    this.#pending.push(value);
    if (this.#draining) return;
    this.#draining = true;
    try {
      for (let i = 0; i < this.#pending.length; i++) {
        const next = this.#pending[i] as T;
        for (const listener of [...this.#listeners]) {
          try {
            listener(this.#copy(next));
          } catch (error) {
            this.#onError(error);
          }
        }
      }
    } finally {
      this.#pending.length = 0;
      this.#draining = false;
    }
  }
}
