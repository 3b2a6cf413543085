/**
 * What a handling's context holds until its handler sets something: shared, and only read.
 */
import type { Timer } from '../adapter/storedRecords.ts';

/** The reply of a handling that set none. */
export const NO_REPLY = Object.freeze({ set: false, value: undefined });

/** The timers of a handling that set none: shared, and only read. */
export const NO_TIMERS: ReadonlyMap<string, Timer | null> = new Map();

/** A record read from the store in this turn: nothing to confirm. */
export const confirmed = async (): Promise<void> => {};
