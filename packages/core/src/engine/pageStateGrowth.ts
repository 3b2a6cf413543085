import { jsonSize } from '../adapter/conflicts.ts';
import type { ActorRecord } from '../adapter/storedRecords.ts';

/**
 * How much the record's outcome page state may grow at its commit, which appends the commit's
 * outcomes after the record was measured: its numbers at their longest, both times set.
 */
export function pageStateGrowth(record: ActorRecord): number {
  const state = record.outcomePage;
  if (!state) return 0;
  // Counted field by field, as `jsonSize` of the state at its widest less `jsonSize` of the
  // state would (each message of a turn measures it, and a commit makes a new state).
  const growth =
    fieldGrowth('page', state.page, WIDEST_PAGE) +
    fieldGrowth('bytes', state.bytes, WIDEST_PAGE_BYTES) +
    fieldGrowth('sentAt', state.sentAt, WIDEST_TIME) +
    fieldGrowth('closedSentAt', state.closedSentAt, WIDEST_TIME);
  return Math.max(0, growth);
}

/** The widest numbers of an outcome page state: its page (from a time), its bytes, its times. */
const WIDEST_PAGE = 99_999_999_999_999;
const WIDEST_PAGE_BYTES = 99_999;
const WIDEST_TIME = 9_999_999_999_999;

/**
 * JSON bytes a field of a flat object grows by when its value becomes `widest`: the difference
 * of the numbers' texts, or the whole field with its comma when it is absent.
 */
function fieldGrowth(key: string, value: number | undefined, widest: number): number {
  const width = String(widest).length;
  return value === undefined ? key.length + 4 + width : width - jsonSize(value);
}
