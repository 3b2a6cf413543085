/**
 * The largest payload a message may carry, and its check. One limit at every door — a client's
 * send or ask, a handler's `ctx.send`, `ask`, `schedule` or `effect` — so that a message fits
 * whole wherever Baton keeps it (its sender's record or outbox, a dead letter, the letter that
 * parks it at a paused actor), and a handler may pass on what it was sent.
 */
import { batonError, ErrorCode } from '../errors.ts';
import { jsonSize } from './conflicts.ts';
import type { StoreLimits } from './ports.ts';

/** Half a store item (about 200 KB on DynamoDB), with room beside the payload to spare. */
export const payloadLimit = (limits: StoreLimits): number => Math.floor(limits.maxItemBytes / 2);

/** Throws MESSAGE_TOO_LARGE when `payload` is over `limit` bytes of JSON. */
export function checkPayloadSize(
  limit: number,
  what: string,
  name: string,
  payload: unknown,
  to?: string,
): void {
  const size = jsonSize(payload);
  if (size > limit) {
    throw batonError(
      ErrorCode.MESSAGE_TOO_LARGE,
      `payload of "${name}" ${what} is ${size} bytes; the limit is ${limit}: store large data elsewhere and send a reference`,
      { ...(to && { to }), name, size, limit },
    );
  }
}
