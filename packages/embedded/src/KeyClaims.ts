/**
 * The embedded store's key claims (`Store.claimKey`): which message each idempotency key is
 * bound to, until the claim expires. Kept apart from the actor records: a claim is written by a
 * send, never by a turn.
 */
import type { KeyClaim } from '@baton/core/adapter';
import type { JournalEntry } from './Journal.ts';

/** A journal entry: `key` was claimed for the message with `fingerprint`. */
export interface ClaimEntry extends JournalEntry {
  readonly t: 'store.claim';
  readonly claim: KeyClaim;
}

/**
 * Claims by key, each read as absent once past its `expiresAt`.
 *
 * @example
 * const claims = new KeyClaims();
 * claims.apply({ t: 'store.claim', claim: { key: 'ingress:["a/1","k"]', fingerprint: 'f', expiresAt: 10 } });
 * claims.live('ingress:["a/1","k"]', 5); // the claim
 * claims.live('ingress:["a/1","k"]', 10); // undefined
 */
export class KeyClaims {
  readonly #claims = new Map<string, KeyClaim>();

  /** The unexpired claim on `key` at `now`, if any. */
  live(key: string, now: number): KeyClaim | undefined {
    const claim = this.#claims.get(key);
    return claim && claim.expiresAt > now ? claim : undefined;
  }

  apply(entry: ClaimEntry): void {
    this.#claims.set(entry.claim.key, entry.claim);
  }

  /** Forgets the claims expired at `now` (they read as absent already). */
  purge(now: number): void {
    for (const [key, claim] of this.#claims) if (claim.expiresAt <= now) this.#claims.delete(key);
  }

  /** The claims as journal entries, to compact a journal. */
  entries(): ClaimEntry[] {
    return [...this.#claims.values()].map((claim) => ({ t: 'store.claim', claim }));
  }
}
