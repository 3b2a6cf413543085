/**
 * The wait before reconnect attempt `attempt` (0 for the first): a random time between half and
 * all of `min(maxMs, minMs · 2^attempt)` ("equal jitter"), so clients dropped together do not
 * come back together.
 */
export function backoffDelay(
  attempt: number,
  minMs: number,
  maxMs: number,
  random: () => number,
): number {
  const ceiling = Math.min(maxMs, minMs * 2 ** Math.min(attempt, 30));
  return ceiling / 2 + (random() * ceiling) / 2;
}
