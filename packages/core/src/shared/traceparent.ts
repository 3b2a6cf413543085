/** Reads a W3C trace context's `traceparent` (see adapter/traceContext.ts). */

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The parts of a valid `traceparent` (version 00), or `undefined`. */
export function parseTraceparent(
  value: unknown,
): { traceId: string; parentId: string; flags: string } | undefined {
  if (typeof value !== 'string') return undefined;
  const match = TRACEPARENT.exec(value);
  if (!match) return undefined;
  const [, traceId, parentId, flags] = match as unknown as [string, string, string, string];
  // All-zero ids are invalid (W3C trace context, 3.2.2.3–3.2.2.4).
  if (/^0+$/.test(traceId) || /^0+$/.test(parentId)) return undefined;
  return { traceId, parentId, flags };
}
