/**
 * A callback's token: the instance, the command and a secret, so whoever completes it needs
 * nothing else, and nobody can guess one. base64url of JSON, opaque to its holder.
 */
import { BatonError, ErrorCode } from '../errors.ts';
import { sameText } from '../shared/sameText.ts';
import { entryAt, type JournalEntry, type WorkflowState } from './journal.ts';

export interface CallbackAddress {
  /** The workflow instance's actor id. */
  readonly actorId: string;
  readonly seq: number;
  readonly secret: string;
}

const toBase64Url = (text: string) =>
  btoa(String.fromCodePoint(...new TextEncoder().encode(text)))
    .replaceAll('+', '-')
    .replaceAll('/', '_')
    .replace(/=+$/, '');

const fromBase64Url = (text: string) => {
  const binary = atob(text.replaceAll('-', '+').replaceAll('_', '/'));
  return new TextDecoder().decode(Uint8Array.from(binary, (c) => c.codePointAt(0) ?? 0));
};

/**
 * The callback entry of instance `actorId`'s `state` that `address` names, if its secret is the
 * address's; `undefined` for every token the record cannot check (another instance, another
 * command, a wrong secret, or an entry moved out into a page).
 */
export function callbackEntry(
  state: WorkflowState,
  actorId: string,
  address: CallbackAddress,
): JournalEntry | undefined {
  if (address.actorId !== actorId) return undefined;
  const entry = entryAt(state, address.seq);
  return entry?.kind === 'callback' && sameText(entry.secret ?? '', address.secret)
    ? entry
    : undefined;
}

/**
 * The pending callback of instance `actorId`'s `state` that `token` names. FORBIDDEN, one answer
 * for every token whose secret the record cannot check (no instance, another command, a wrong
 * secret, or a callback moved out into a page, final long ago), so a forged token tells nothing
 * of which instances exist, even those clients cannot reach; REJECTED for a settled one (a
 * replayed token, or one whose wait timed out or lost a race), which changes nothing.
 */
export function pendingCallback(
  state: WorkflowState,
  actorId: string,
  token: unknown,
): JournalEntry {
  const entry = callbackEntry(state, actorId, callbackToken.decode(token));
  if (!entry) throw notPendingCallback();
  const settled = settledCallback(entry);
  if (settled) throw settled;
  return entry;
}

/**
 * REJECTED for a completion of callback `entry` once it is settled (completed, timed out, or a
 * race's loser), else `undefined`: a callback completes once, and its token cannot be used again.
 */
export function settledCallback(entry: JournalEntry): BatonError | undefined {
  if (entry.state === 'pending') return undefined;
  return new BatonError(
    ErrorCode.REJECTED,
    `callback "${entry.name}" is ${entry.state === 'done' ? 'completed' : entry.state} already: a callback completes once, and its token cannot be used again`,
    { details: { callback: entry.name, state: entry.state } },
  );
}

/** The refusal of a token that names no pending callback of the instance it is sent to. */
export function notPendingCallback(): BatonError {
  return new BatonError(
    ErrorCode.FORBIDDEN,
    'not a pending callback of this workflow instance: pass the token its ctx.createCallback() gave, unchanged (a callback completes once)',
  );
}

export const callbackToken = {
  encode(actorId: string, seq: number, secret: string): string {
    return toBase64Url(JSON.stringify([actorId, seq, secret]));
  },
  /**
   * The token's parts; INVALID_ARGUMENT for anything that is not a token, or not spelt as
   * {@link encode} spells it: a token has one spelling, so a log searched for it, or a list of
   * tokens refused, finds every use of it.
   */
  decode(token: unknown): CallbackAddress {
    try {
      const [actorId, seq, secret] = JSON.parse(fromBase64Url(String(token))) as unknown[];
      if (
        typeof actorId === 'string' &&
        Number.isInteger(seq) &&
        typeof secret === 'string' &&
        callbackToken.encode(actorId, seq as number, secret) === token
      ) {
        return { actorId, seq: seq as number, secret };
      }
    } catch {
      // Not a token: answered below.
    }
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      'not a workflow callback token: pass the token ctx.createCallback() gave, unchanged',
    );
  },
  /** 128 random bits, hex. */
  secret(): string {
    const bytes = globalThis.crypto.getRandomValues(new Uint8Array(16));
    return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  },
};
