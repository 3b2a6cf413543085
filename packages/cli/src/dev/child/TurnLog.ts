import type { Commit } from '@baton/core/adapter';

/** What became of one message of a turn. */
export interface TurnMessage {
  readonly id: string;
  readonly name: string;
  /** The sender: an actor id, or `ingress`. */
  readonly from: string;
  readonly outcome: 'ok' | 'rejected' | 'dead-lettered' | 'retry';
  readonly error?: string;
}

/** One turn of one actor, as the inspector lists it. */
export interface TurnEntry {
  readonly at: number;
  readonly actorId: string;
  readonly messages: readonly TurnMessage[];
  readonly durationMs: number;
}

/** What the commits of one turn said about its messages, by message id. */
export class TurnOutcomes {
  readonly #errors = new Map<string, { outcome: 'rejected' | 'dead-lettered'; error: string }>();

  add(commit: Commit): void {
    for (const record of [...commit.idempotency, ...(commit.replaceIdempotency ?? [])]) {
      if (!record.outcome.ok) {
        this.#errors.set(record.key, { outcome: 'rejected', error: record.outcome.error.message });
      }
    }
    for (const letter of commit.deadLetters?.put ?? []) {
      // A redrive's proof is kept for a message applied.
      if (letter.applied) continue;
      this.#errors.set(letter.messageId, { outcome: 'dead-lettered', error: letter.error.message });
    }
  }

  of(messageId: string): { outcome: 'rejected' | 'dead-lettered'; error: string } | undefined {
    return this.#errors.get(messageId);
  }
}

/** The most recent turns, newest first. */
export class TurnLog {
  readonly #entries: TurnEntry[] = [];
  readonly #limit: number;
  #count = 0;

  constructor(limit = 50) {
    this.#limit = limit;
  }

  /** Turns recorded since the process started. */
  get count(): number {
    return this.#count;
  }

  add(entry: TurnEntry): void {
    this.#count++;
    this.#entries.unshift(entry);
    if (this.#entries.length > this.#limit) this.#entries.pop();
  }

  recent(): readonly TurnEntry[] {
    return this.#entries;
  }
}
