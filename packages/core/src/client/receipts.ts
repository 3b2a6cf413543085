/**
 * Receipts: the ids of messages sent with no idempotency key. Such a message's key is
 * `<sentAt in base 36>.<nonce>.<tag>`, the tag an HMAC of the id it completes under a secret the
 * app's store keeps, so only the app's doors can make one. A read of an outcome by id
 * (`Client.outcome`) goes through an actor's outcome pages only for a receipt whose tag holds,
 * from when its message was sent, or for a keyed message whose key is claimed. On a store that
 * reads claims, an id a caller made up, to another user's actor say, is answered "unknown" at
 * once, with no page read: its answer and its time tell nothing of how busy that actor is, and
 * it costs the store one read.
 */
import { type Envelope, ingressMessageId } from '../adapter/envelope.ts';
import type { Store } from '../adapter/ports.ts';
import type { Caller } from '../caller.ts';
import { hmacSha256 } from '../shared/hmacSha256.ts';
import { sameText } from '../shared/sameText.ts';
import { base64url } from '../shared/sha256.ts';

/** The key of the claim that holds the secret (an ingress id begins `ingress:`, never `$`). */
export const RECEIPT_SECRET_CLAIM = '$baton/receipt-secret';
/** The secret's claim never expires: 9999-12-31. */
const FOREVER = 253_402_300_799_000;
/** Bytes of the nonce and of the tag: 96 bits each, base64url in 16 characters. */
const NONCE_BYTES = 12;
const TAG_BYTES = 12;

const secrets = new WeakMap<Store, Uint8Array | Promise<Uint8Array>>();

/**
 * The app's receipt secret, from `store`: the first door that needs it claims a fresh random one
 * (a claim that never expires), and every later one reads it back from that claim. One claim
 * write per store in a process, a failed one tried again by the next call; once known, it is
 * given at once, not as a promise, so that a send takes no more turns of the event loop than
 * it did before receipts.
 */
export function receiptSecret(store: Store): Uint8Array | Promise<Uint8Array> {
  const known = secrets.get(store);
  if (known) return known;
  const fresh = base64url(globalThis.crypto.getRandomValues(new Uint8Array(32)));
  const claim = { key: RECEIPT_SECRET_CLAIM, fingerprint: fresh, expiresAt: FOREVER };
  const claimed = store.claimKey(claim).then(
    (held) => {
      const secret = new TextEncoder().encode(held?.fingerprint ?? fresh);
      secrets.set(store, secret);
      return secret;
    },
    (error: unknown) => {
      secrets.delete(store);
      throw error;
    },
  );
  secrets.set(store, claimed);
  return claimed;
}

/**
 * `envelope`, an unkeyed message's, with a fresh receipt for its key: its id made for `caller`
 * (`ingressMessageId`), carrying its `sentAt`. At once when the secret is known.
 */
export function withReceipt(
  store: Store,
  envelope: Envelope,
  caller: Caller,
): Envelope | Promise<Envelope> {
  const secret = receiptSecret(store);
  if (secret instanceof Promise) return secret.then(() => withReceipt(store, envelope, caller));
  const nonce = base64url(globalThis.crypto.getRandomValues(new Uint8Array(NONCE_BYTES)));
  const body = `${Math.floor(envelope.sentAt).toString(36)}.${nonce}`;
  const complete = (key: string) => ingressMessageId(envelope.to, key, caller);
  return { ...envelope, id: complete(`${body}.${tagOf(secret, complete(body))}`) };
}

/**
 * When the message of `id` was sent, if `id` is a receipt made under `secret` (its tag holds);
 * else `undefined`: a keyed message's id, or one nobody's door made.
 */
export function receiptSentAt(secret: Uint8Array, id: string): number | undefined {
  const [to, key, ...digest] = scopeOf(id) ?? [];
  const end = key?.lastIndexOf('.') ?? -1;
  if (end < 0) return undefined;
  const body = key!.slice(0, end);
  const tag = tagOf(secret, `ingress:${JSON.stringify([to, body, ...digest])}`);
  if (!sameText(key!.slice(end + 1), tag)) return undefined;
  const sentAt = Number.parseInt(body, 36);
  return Number.isSafeInteger(sentAt) ? sentAt : undefined;
}

function tagOf(secret: Uint8Array, id: string): string {
  return base64url(hmacSha256(secret, id).subarray(0, TAG_BYTES));
}

/**
 * The scope of an ingress id as a door spells it, `[to, key]` or `[to, key, caller digest]`:
 * another spelling of the same JSON names no outcome.
 */
function scopeOf(id: string): string[] | undefined {
  let scope: unknown;
  try {
    scope = JSON.parse(id.slice('ingress:'.length));
  } catch {
    return undefined;
  }
  const spelt =
    Array.isArray(scope) &&
    (scope.length === 2 || scope.length === 3) &&
    scope.every((part) => typeof part === 'string') &&
    `ingress:${JSON.stringify(scope)}` === id;
  return spelt ? (scope as string[]) : undefined;
}
