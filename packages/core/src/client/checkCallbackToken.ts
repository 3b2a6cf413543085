/**
 * A workflow's `callback` is public to whoever holds a token of it, internal workflows too (a
 * webhook completes it). Checked at the door, before anything is enqueued: a token that names
 * no callback of the instance it is sent to is refused there, as a message to a type that takes
 * nothing from clients is, so that an outsider's forged token tells nothing of which workflows
 * and instances exist, and writes nothing. The handler checks the token again in its turn.
 */
import { isOpenType, notOpen } from '../access.ts';
import type { Envelope } from '../adapter/envelope.ts';
import type { Store } from '../adapter/ports.ts';
import { type Caller, isTrusted } from '../caller.ts';
import type { AnyHandler, Registry } from '../registry.ts';
import { parseActorId } from '../shared/actorId.ts';
import { TOKEN_GUARDED } from '../shared/tokenGuarded.ts';
import {
  callbackEntry,
  callbackToken,
  notPendingCallback,
  settledCallback,
} from '../workflow/callbackToken.ts';
import type { JournalEntry, WorkflowState } from '../workflow/journal.ts';

/**
 * Throws FORBIDDEN unless message `name` to `to` from `caller` is trusted, not token-guarded, or
 * carries the token of a callback the instance journaled. REJECTED, from any caller, when that
 * callback is settled already (it completes once), but for a message whose key is claimed, which
 * its key answers (its first outcome, or a reuse refused). A keyed retry of a completion let through
 * before passes too once the record no longer holds the callback (moved into a history page,
 * or the instance gone): its key's outcome answers it.
 */
export async function checkCallbackToken(
  store: Store,
  registry: Registry,
  caller: Caller,
  message: Pick<Envelope, 'id' | 'to' | 'name' | 'payload' | 'fingerprint'>,
  keyed: boolean,
  hint?: string,
): Promise<void> {
  const { to, name, payload } = message;
  const type = parseActorId(to)?.type;
  if (type === undefined || !registry.types.includes(type)) return;
  const handlers = registry.definition(type).handlers as Record<string, AnyHandler>;
  const handler = Object.hasOwn(handlers, name) ? handlers[name] : undefined;
  if (!(handler as { [TOKEN_GUARDED]?: true } | undefined)?.[TOKEN_GUARDED]) return;
  const entry = await journaled(store, to, (payload as { token?: unknown } | undefined)?.token);
  if (entry) {
    const settled = settledCallback(entry);
    // A keyed one goes on to its key: the retry of the completion taken is answered by its
    // outcome, another message under the key is refused as a reuse (IDEMPOTENCY_KEY_REUSED).
    if (settled && !(keyed && (await mayBeClaimed(store, message)))) throw settled;
    return;
  }
  if (isTrusted(caller)) return;
  if (keyed && (await claimedBefore(store, message))) return;
  if (!isOpenType(registry, type)) throw notOpen(registry, type, name, hint);
  throw notPendingCallback();
}

/** The callback instance `to` has journaled that `token` names, by its secret. */
async function journaled(
  store: Store,
  to: string,
  token: unknown,
): Promise<JournalEntry | undefined> {
  let address: ReturnType<typeof callbackToken.decode>;
  try {
    address = callbackToken.decode(token);
  } catch {
    return undefined;
  }
  // A token of another instance needs no read: it names no callback of this one.
  if (address.actorId !== to) return undefined;
  const state = (await store.load(to))?.state as WorkflowState | undefined;
  return state?.journal === undefined ? undefined : callbackEntry(state, to, address);
}

/** Whether its key may be claimed already: by this message or another (or the store keeps no claims to tell). */
async function mayBeClaimed(store: Store, message: Pick<Envelope, 'id'>): Promise<boolean> {
  return store.readClaim === undefined || (await store.readClaim(message.id)) !== undefined;
}

/** Whether this very message claimed its key before: a send the door let through then. */
async function claimedBefore(
  store: Store,
  message: Pick<Envelope, 'id' | 'fingerprint'>,
): Promise<boolean> {
  const claim = await store.readClaim?.(message.id);
  return claim !== undefined && claim.fingerprint === message.fingerprint;
}
