/**
 * `T` with its properties writable: for building a readonly value field by field before it is
 * handed on.
 *
 * @example
 * const entry: Writable<Commit> = { expectedVer: 0, record };
 * if (outbox.length > 0) entry.outbox = outbox;
 */
export type Writable<T> = { -readonly [K in keyof T]: T[K] };
