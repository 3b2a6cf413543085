import { describe, expect, it } from 'vitest';
import type { ActorRecord } from '../adapter/storedRecords.ts';
import { copyRecord, RECORD_FIELDS } from './copyRecord.ts';

describe('copyRecord', () => {
  it('copies every field of a record, as a spread does', () => {
    // A distinct value in every field, so a field copied into another would show too.
    const full = Object.fromEntries(
      Object.keys(RECORD_FIELDS).map((field, i) => [field, { field, i }]),
    ) as unknown as ActorRecord;
    const copy = copyRecord(full);
    expect(copy).toStrictEqual({ ...full });
    expect(copy).not.toBe(full);
  });

  it('leaves absent and undefined fields out, and copies only one level', () => {
    const state = { n: 1 };
    const record: ActorRecord = {
      id: 'tally/a',
      ver: 1,
      state,
      inboxOffset: '0',
      marks: {},
      sentSeq: 0,
      life: undefined,
    };
    const copy = copyRecord(record);
    expect(Object.keys(copy)).toEqual(['id', 'ver', 'state', 'inboxOffset', 'marks', 'sentSeq']);
    expect(copy.state).toBe(state);
  });
});
