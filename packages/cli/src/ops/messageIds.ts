/**
 * Message ids as an operator copies them between commands. A client message's id is JSON
 * (`ingress:["tally/p","…","…"]`): pasted bare, a shell strips its double quotes, and the id
 * names no message. So the human output prints ids as shell words, and a command given an id
 * whose quotes are gone says so, rather than that its message is gone or not processed yet.
 */
import { BatonError, ErrorCode } from '@baton/core';
import { shellQuote } from './target.ts';

/** Whether `messageId` is a client message's id (`ingress:[…]`, JSON) with its quotes gone. */
export function lostItsQuotes(messageId: string): boolean {
  if (!messageId.startsWith('ingress:[')) return false;
  try {
    JSON.parse(messageId.slice('ingress:'.length));
    return false;
  } catch {
    return true;
  }
}

/** The refusal of an id {@link lostItsQuotes} found stripped, with the id as it must be typed. */
export function quotesLost(messageId: string, details: Record<string, unknown>): BatonError {
  const quoted = shellQuote(messageId.replace(/([[,])([^,\]"]+)/g, '$1"$2"'));
  return new BatonError(
    ErrorCode.INVALID_ARGUMENT,
    `the message id ${messageId} lost its quotes (a shell strips them): put the id in single quotes, as baton prints it, e.g. ${quoted}`,
    { details: { ...details, messageId } },
  );
}

/** A table row whose actor and message ids are shell words: copied into a command, each is the id. */
export const pasteable = <Row extends { actor: string; messageId: string }>(row: Row): Row => ({
  ...row,
  actor: shellQuote(row.actor),
  messageId: shellQuote(row.messageId),
});
