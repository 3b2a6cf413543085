/**
 * The options of one request a `BatonClient` sends: a send's or a start's
 * ({@link ClientSendOptions}) and an ask's ({@link ClientAskOptions}).
 */

/**
 * Options of `BatonClient.send`.
 *
 * @example
 * await client.send(Account.ref('alice'), 'deposit', { amount: 5 }, { visible: true });
 */
export interface ClientSendOptions {
  /** Pass the same key when retrying, so the message is accepted once. @default a random UUID */
  readonly idempotencyKey?: string;
  /**
   * Resolve only once the send's commit shows in this client's subscribed queries
   * (read-your-writes), rather than once it is accepted. @default false
   */
  readonly visible?: boolean;
  /** A W3C `traceparent` the message, and every message it causes, carries. @default none */
  readonly traceparent?: string;
  /**
   * Give up after this many ms without the server's answer: UNAVAILABLE when it never went out
   * (the client had no connection: it was not applied), TIMED_OUT when it did (it may have been
   * accepted: send it again under its key). @default none: a send waits for a connection, however long
   */
  readonly timeoutMs?: number;
}

/**
 * Options of `BatonClient.ask`.
 *
 * @example
 * const balance = await client.ask(Account.ref('alice'), 'balance', {}, { timeoutMs: 5_000 });
 */
export interface ClientAskOptions {
  /** @default a random UUID */
  readonly idempotencyKey?: string;
  /** @default the client's `askTimeoutMs` (30 s) */
  readonly timeoutMs?: number;
  /** A W3C `traceparent` the message, and every message it causes, carries. @default none */
  readonly traceparent?: string;
}
