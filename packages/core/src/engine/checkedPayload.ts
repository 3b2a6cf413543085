import { parseStored, storable } from '../storedPayload.ts';

/**
 * `payload` as it is stored, checked by `parse` (see `parseStored`; without: as JSON only) with
 * its target, then by `check` (its size).
 */
export function checkedPayload(
  what: string,
  payload: unknown,
  parse: ((payload: unknown) => unknown) | undefined,
  check: (stored: unknown) => void,
): unknown {
  const stored = parse ? parseStored(what, payload, parse).stored : storable(what, payload);
  check(stored);
  return stored;
}
