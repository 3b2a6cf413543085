import { BatonError, ErrorCode, type SerializedError } from '@baton/core';
import type { AskMessage, SendMessage } from '@baton/protocol';

/** The close codes with which a server ends a connection's auth (`@baton/server`'s CloseCode). */
const AUTH_CLOSES: Readonly<Record<number, string>> = {
  4401: 'the server refused the token',
  4440: "the connection's identity expired",
};

/**
 * The error of a close that ends the connection's auth (4401 unauthorized, 4440 expired), or
 * undefined for any other close. `final`: the client stops reconnecting (its token is fixed).
 * `tokenSent`: whether the socket was opened with a token; a refusal of one without says so.
 */
export function authCloseError(
  code: number,
  reason: string,
  final: boolean,
  tokenSent = true,
): BatonError | undefined {
  const what = AUTH_CLOSES[code];
  if (what === undefined) return undefined;
  const details = { closeCode: code, reason };
  if (code === 4401 && !tokenSent) return noTokenError(reason, final, details);
  return authEndError(`${what} (close code ${code}: ${reason})`, final, details);
}

/** The server refused a connection the client opened without a token. */
function noTokenError(
  reason: string,
  final: boolean,
  details: Record<string, unknown>,
): BatonError {
  const next = final
    ? "the client stopped reconnecting. If the app's auth expects a token, give the client one: " +
      '`new BatonClient({ url, token })`, with a string, or a function that returns one (asked ' +
      'on every connect, so it can sign in and refresh); it is sent as the subprotocol ' +
      '`token.<token>`, or as `?token=` in the URL'
    : 'the token function returned none (undefined or an empty string): reconnecting with what ' +
      "it returns next; have it return the signed-in user's token";
  return new BatonError(
    ErrorCode.UNAUTHENTICATED,
    `the server refused the connection, which sent no token (close code 4401: ${reason}): ${next}`,
    { details: { ...details, tokenSent: false } },
  );
}

/**
 * The error of an `UNAUTHENTICATED` frame that names no request or subscription: how the API
 * Gateway host tells a connection its identity ended, before it closes it with no code of ours.
 */
export function authFrameError(error: SerializedError, final: boolean): BatonError | undefined {
  if (error.code !== ErrorCode.UNAUTHENTICATED) return undefined;
  return authEndError(`the server ended the connection's auth (${error.message})`, final, {
    ...error.details,
  });
}

function authEndError(what: string, final: boolean, details: Record<string, unknown>): BatonError {
  const next = final
    ? 'the client stopped reconnecting, as the same token would be refused again: sign in again ' +
      'and create a new client with a valid token (a token function is asked for a fresh one on ' +
      'every connect)'
    : 'reconnecting with a token from the token function';
  return new BatonError(ErrorCode.UNAUTHENTICATED, `${what}: ${next}`, { details });
}

/**
 * What a send or ask still in flight rejects with when the connection's auth ended for good: it
 * may have been applied before the server stopped answering, so it says how to retry safely.
 */
export function unansweredError(frame: SendMessage | AskMessage, ended: BatonError): BatonError {
  const again = retryHint(frame);
  return new BatonError(
    ErrorCode.UNAUTHENTICATED,
    `${frame.type} ${frame.idempotencyKey} got no answer before the server ended the ` +
      `connection's auth; it may or may not have been applied: ${again}, from a client with a ` +
      'valid token',
    { details: { ...ended.details, idempotencyKey: frame.idempotencyKey }, cause: ended },
  );
}

/**
 * What a send or ask in flight rejects with when the client reconnects as another user than the
 * one it was made as (the page signed someone else in): sent again, it would be that user's.
 */
export function otherUserError(
  frame: SendMessage | AskMessage,
  madeAs: string,
  subject: string,
): BatonError {
  const again = retryHint(frame);
  return new BatonError(
    ErrorCode.UNAUTHENTICATED,
    `${frame.type} ${frame.idempotencyKey} was made while the client was connected as ` +
      `${userName(madeAs)}, and got no answer; the client is now connected as ` +
      `${userName(subject)}, so it is not sent again (it would be theirs). It may or may not ` +
      `have been applied: ${again}, signed in as ${userName(madeAs)}`,
    { details: { idempotencyKey: frame.idempotencyKey, madeAs, subject } },
  );
}

/** How to retry a request that may or may not have been applied: with its key. */
function retryHint(frame: SendMessage | AskMessage): string {
  return frame.type === 'ask'
    ? 'ask again with the same idempotencyKey to get its outcome'
    : 'send it again with the same idempotencyKey';
}

/** A user as `tokenSubject` names them, for a message. */
function userName(subject: string): string {
  return subject === '' ? 'a user the token does not name (no JWT sub)' : `user ${subject}`;
}

/** What a send or ask made after the connection's auth ended for good rejects with. */
export function notSentError(ended: BatonError): BatonError {
  return new BatonError(
    ErrorCode.UNAUTHENTICATED,
    "not sent: the server ended the connection's auth and the client stopped reconnecting; " +
      'create a new client with a valid token',
    { details: ended.details, cause: ended },
  );
}
