/**
 * `reason` cut to fit a close frame, which takes at most 123 bytes of UTF-8 (`ws` throws past
 * them).
 *
 * @example
 * socket.close(CloseCode.TOO_MANY_FRAMES, closeReason(error.message));
 */
export function closeReason(reason: string): string {
  let out = reason;
  while (Buffer.byteLength(out) > 123) out = `${out.slice(0, out.length - 2)}…`;
  return out;
}
