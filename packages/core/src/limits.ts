/**
 * Size limits every backend enforces alike, so that what AWS would refuse is refused the same
 * way on the embedded backend, in tests, before anything is stored or sent.
 */

/**
 * The largest queue message, in bytes (UTF-8 body plus message attributes): SQS's maximum
 * message size, 1 MiB since 2025 (256 KiB before). The SQS adapter and the embedded queue both
 * refuse a larger message with a terminal MESSAGE_TOO_LARGE and send nothing.
 *
 * @example
 * if (Buffer.byteLength(body, 'utf8') > MAX_MESSAGE_BYTES) throw new Error('too large for a queue');
 */
export const MAX_MESSAGE_BYTES = 1_048_576;

/**
 * The longest a received queue message stays hidden, in milliseconds: SQS's longest visibility
 * timeout, 12 hours. SQS refuses a receive that asks for more; the SQS adapter and the embedded
 * queue both refuse it with INVALID_ARGUMENT, and the engine refuses a longer
 * `visibilityTimeoutMs` when it is created. The 12 hours count from the receive: SQS refuses a
 * release past them, and so does the embedded queue; a worker releases for no longer.
 *
 * @example
 * new Worker({ actors, store, queue, visibilityTimeoutMs: MAX_VISIBILITY_TIMEOUT_MS }); // the most
 */
export const MAX_VISIBILITY_TIMEOUT_MS = 12 * 60 * 60 * 1000;

/**
 * The most messages one receive takes: SQS's MaxNumberOfMessages, 1 to 10. SQS refuses a receive
 * that asks for more; the SQS adapter and the embedded queue both refuse it with
 * INVALID_ARGUMENT, and the engine refuses a larger `batchSize` when it is created.
 *
 * @example
 * new Worker({ actors, store, queue, batchSize: MAX_RECEIVE_MESSAGES }); // the most
 */
export const MAX_RECEIVE_MESSAGES = 10;

/**
 * The longest actor key, in UTF-8 bytes. DynamoDB allows 2,048 bytes in a partition key, and
 * Baton's keys hold more than the actor key: a type and a prefix (`A#type/key`), and for ingress
 * ids the actor id plus an idempotency key of up to 200 characters. Half the partition-key
 * limit leaves room for all of them. `Definition.ref(key)` and `Registry.resolve` refuse a
 * longer key with INVALID_REF.
 *
 * @example
 * Account.ref('x'.repeat(MAX_ACTOR_KEY_BYTES)); // fine
 * Account.ref('x'.repeat(MAX_ACTOR_KEY_BYTES + 1)); // throws INVALID_REF
 */
export const MAX_ACTOR_KEY_BYTES = 1024;

/**
 * The longest name of an actor type, a handler, a query or a workflow, in characters. Clients
 * name them in every message and subscription: a host refuses a longer name in a frame
 * (INVALID_PAYLOAD) before it looks it up, and `actor()`, `query()` and `workflow()` refuse to
 * define one (INVALID_ARGUMENT), so every name an app has is one a client can send.
 *
 * @example
 * actor({ name: 'account', ... }); // fine: 7 characters
 */
export const MAX_NAME_LENGTH = 128;

/** What is wrong with `name` past {@link MAX_NAME_LENGTH}, if it is that long. */
export function nameTooLong(name: string): string | undefined {
  return name.length > MAX_NAME_LENGTH
    ? `it is ${name.length} characters long, and a name is at most ${MAX_NAME_LENGTH}`
    : undefined;
}
