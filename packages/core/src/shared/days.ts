/** A day, in ms: what retentions are counted in. */
export const DAY = 24 * 60 * 60 * 1000;

/** `ms` in days, to a tenth: as a message about a retention or an age says it. */
export const days = (ms: number): number => Math.round((ms / DAY) * 10) / 10;
