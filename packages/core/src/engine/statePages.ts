import type { StoreLimits } from '../adapter/ports.ts';
import { KEEP_BYTES } from '../contextSlots.ts';

/** When a store may forget a state page (contextSlots.ts): never (the instance's record says which pages it holds). */
export const PAGE_EXPIRES_AT = Number.MAX_SAFE_INTEGER;

/**
 * Bytes of a growing state a record keeps on a store with `limits` (contextSlots.ts): its
 * `historyBytes`, or a quarter of its item limit if that is less.
 */
export function historyBytes(limits: StoreLimits): number {
  return Math.min(limits.historyBytes ?? KEEP_BYTES, Math.floor(limits.maxItemBytes / 4));
}
