/**
 * A payload as it is stored and read back: JSON. A door — the client, `ctx.send`, `ctx.ask`,
 * `ctx.schedule`, `ctx.effect` — checks the payload in that form, as its receiver will parse it,
 * so it refuses what the receiver would refuse rather than enqueue a message that can never run.
 */
import { BatonError, ErrorCode, isBatonError } from './errors.ts';
import { asStrictJson } from './shared/asJson.ts';

/**
 * `value` as storage keeps it (JSON, a copy), or INVALID_PAYLOAD when JSON cannot hold it (a Map
 * or a Set too, which JSON would keep as `{}`).
 */
export function storable(what: string, value: unknown): unknown {
  try {
    return asStrictJson(value);
  } catch (error) {
    // JSON's own walk runs out of stack on a value nested thousands deep.
    const message = (error as Error).message;
    const why = /call stack/i.test(message) ? 'it nests too deeply' : message;
    throw new BatonError(
      ErrorCode.INVALID_PAYLOAD,
      `${what} must be JSON, as it is stored: ${why}`,
      { cause: error },
    );
  }
}

/**
 * `parse` (the receiver's schema check) run on `payload` as JSON gives it back, and that stored
 * form. A payload that passes as given but not so — a `Date` under `z.date()`, which arrives as
 * an ISO string — is refused, saying why.
 */
export function parseStored<T>(
  what: string,
  payload: unknown,
  parse: (payload: unknown) => T,
): { readonly parsed: T; readonly stored: unknown } {
  const stored = storable(what, payload);
  try {
    return { parsed: parse(stored), stored };
  } catch (error) {
    if (!isBatonError(error) || error.code !== ErrorCode.INVALID_PAYLOAD) throw error;
    parse(payload); // a payload that fails as given gets its own error
    throw new BatonError(
      ErrorCode.INVALID_PAYLOAD,
      `${what} passes its schema but not once stored as JSON, as its receiver reads it (a Date becomes an ISO string, undefined fields vanish): declare what JSON gives back (e.g. z.iso.datetime(), or z.coerce.date()) or send JSON values. ${error.message}`,
      { details: error.details, cause: error },
    );
  }
}
