/**
 * Who sent a message or asks a query: `ctx.caller` in handlers and queries. A host names the
 * caller of every request from outside (the identity its `auth` returned, the SigV4 principal
 * of the HTTP ingress, or anonymous); the engine names actors and timers itself; trusted server
 * code says it is the system (`client.asSystem()`).
 */

import { canonicalJson } from './shared/canonicalJson.ts';
import { digest128 } from './shared/sha256.ts';

/**
 * Who is calling. `Identity` is what the app's `auth` returns.
 *
 * @example
 * function userOf(caller: Caller<{ userId: string }>): string | undefined {
 *   return caller.kind === 'user' ? caller.identity.userId : undefined;
 * }
 */
export type Caller<Identity = unknown> =
  /** A connection the app's `auth` accepted: `identity` is what it returned. */
  | { readonly kind: 'user'; readonly identity: Identity }
  /** A request from outside with no identity (an app without `auth`, an open ingress). */
  | { readonly kind: 'anonymous' }
  /** A SigV4-signed request to the HTTP ingress: the IAM principal's ARN. */
  | { readonly kind: 'iam'; readonly principal: string }
  /** A message another actor sent (`ctx.send`, `ctx.ask`, an ask's reply): its actor id. */
  | { readonly kind: 'actor'; readonly actor: string }
  /** The fire of a timer the actor scheduled itself. */
  | { readonly kind: 'timer' }
  /** Trusted server code that holds the queue's rights (`client.asSystem()`). */
  | { readonly kind: 'system' };

/**
 * An outside request without identity.
 *
 * @example
 * await client.send(ref, 'deposit', { amount: 5 }, { caller: ANONYMOUS });
 */
export const ANONYMOUS: Caller<never> = Object.freeze({ kind: 'anonymous' });

/**
 * Trusted server code: may send internal messages, and no `authorize` check runs for it.
 *
 * @example
 * await client.send(Account.ref('bob'), 'credit', { from: 'bank', amount: 5 }, { caller: SYSTEM });
 */
export const SYSTEM: Caller<never> = /* @__PURE__ */ Object.freeze({ kind: 'system' });

/**
 * The caller of a connection whose `auth` returned `identity`: a user, or anonymous when there
 * is no identity (no `auth`, or one that returned `undefined` or `null`).
 *
 * @example
 * callerOf({ userId: 'alice' }); // { kind: 'user', identity: { userId: 'alice' } }
 * callerOf(undefined); // { kind: 'anonymous' }
 */
export function callerOf<Identity>(identity: Identity | undefined | null): Caller<Identity> {
  return identity === undefined || identity === null ? ANONYMOUS : { kind: 'user', identity };
}

/** Whether the caller is Baton itself or trusted code: an actor, a timer or the system. */
export function isTrusted(caller: Caller): boolean {
  return caller.kind === 'system' || caller.kind === 'actor' || caller.kind === 'timer';
}

/**
 * A digest of the caller (22 characters, base64url of SHA-256): what ids, keys and logs carry
 * instead of the caller itself. Unkeyed, so stable across deploys and stores (an ingress id
 * must be the same for a retry); a pseudonym, not a secret: a guessed caller can be checked.
 *
 * @example
 * callerDigest({ kind: 'user', identity: { userId: 'alice' } }); // 22 characters, never 'alice'
 */
export function callerDigest(caller: Caller): string {
  return digest128(canonicalJson(caller, 'the caller identity'));
}

/** Whether `value` has the shape of a {@link Caller} (as decoded from an envelope). */
export function isCaller(value: unknown): value is Caller {
  if (typeof value !== 'object' || value === null) return false;
  const caller = value as Record<string, unknown>;
  switch (caller.kind) {
    case 'user':
      return 'identity' in caller;
    case 'iam':
      return typeof caller.principal === 'string';
    case 'actor':
      return typeof caller.actor === 'string';
    case 'anonymous':
    case 'timer':
    case 'system':
      return true;
    default:
      return false;
  }
}
