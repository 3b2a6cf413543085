/** The socket under a connection, as far as the gate needs it: `'drain'` once it took its writes. */
interface DrainingSocket {
  once?(event: 'drain', listener: () => void): unknown;
}

/** A subscription stream that holds its newest result while the gate is shut. */
export interface GatedStream {
  /** The gate opened: the stream sends what it holds, if it may. */
  release(): void;
}

/**
 * Holds a connection's subscription pushes while its client leaves more than `maxUnreadBytes`
 * unread — what the socket has not taken, and this turn's frames not yet written. Each stream
 * keeps only its newest result meanwhile (a newer one replaces it), and the streams go on in
 * the order they waited once the backlog drains. So a client that subscribes to many large
 * views and reads nothing makes the host hold about `maxUnreadBytes` and one frame for it, not
 * every first result. A socket without `'drain'` (no raw socket) is never gated.
 *
 * @example
 * const gate = new PushGate(() => unreadBytes(), maxUnreadBytes, rawSocket);
 * if (gate.open()) deliver(result);
 * else gate.wait(stream); // stream.release() once what was written drains
 */
export class PushGate {
  readonly #waiting = new Set<GatedStream>();
  #listening = false;

  constructor(
    private readonly backlog: () => number,
    private readonly maxUnreadBytes: number,
    private readonly transport: DrainingSocket | undefined,
  ) {}

  /** Whether a push may be written now. */
  open(): boolean {
    return !this.transport?.once || this.backlog() <= this.maxUnreadBytes;
  }

  /** `stream` waits for the gate to open. */
  wait(stream: GatedStream): void {
    this.#waiting.add(stream);
    this.#listen();
  }

  /**
   * The turn's frames were written: streams waiting go on at once if the socket took them (it
   * emits `'drain'` only after a write it could not take whole).
   */
  written(): void {
    if (this.#waiting.size > 0 && this.open()) this.#release();
  }

  /** Forgets the streams waiting (the connection closed). */
  clear(): void {
    this.#waiting.clear();
  }

  #listen(): void {
    if (this.#listening) return;
    this.#listening = true;
    this.transport?.once?.('drain', () => {
      this.#listening = false;
      this.#release();
    });
  }

  #release(): void {
    for (const stream of this.#waiting) {
      // Each release writes: the gate may shut again partway.
      if (!this.open()) {
        this.#listen();
        return;
      }
      this.#waiting.delete(stream);
      stream.release();
    }
  }
}
