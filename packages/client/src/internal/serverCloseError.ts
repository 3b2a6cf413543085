import { BatonError, ErrorCode } from '@baton/core';

/** The standard close code of a connection closed for a policy it broke (a flood of frames). */
const POLICY_VIOLATION = 1008;

/**
 * The error to tell the app of a close for a reason of the server's own, or undefined for any
 * other close (a drop, a deploy, the socket's age): 4000-4999 are the server's reasons (e.g.
 * 4429 too many connections), 1008 a policy the client broke (it sent frames past twice the
 * server's rate). Either way the client reconnects after its backoff, which grows while each
 * socket closes within `stableMs`, so a page that floods again is not reconnected in a loop.
 *
 * @example
 * serverCloseError(4429, 'too many connections')?.message;
 * // 'the server closed the connection: too many connections'
 */
export function serverCloseError(code: number, reason: string): BatonError | undefined {
  if (code !== POLICY_VIOLATION && (code < 4000 || code >= 5000)) return undefined;
  return new BatonError(ErrorCode.UNAVAILABLE, `the server closed the connection: ${reason}`, {
    details: { closeCode: code, reason },
  });
}
