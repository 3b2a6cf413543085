import { describe, expect, it } from 'vitest';
import type { SerializedError } from '../errors.ts';
import { ErrorCode } from '../errors.ts';
import { journalError, MAX_JOURNAL_ERROR_BYTES } from './journal.ts';

const body = (bytes: number) => `<html>${'x'.repeat(bytes)}</html>`;
const size = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

describe('journalError', () => {
  it('keeps an error that fits as it is', () => {
    const error = { code: ErrorCode.REJECTED, message: 'no room', details: { room: 12 } };
    expect(journalError(error)).toBe(error);
  });

  it('cuts a long message, and a cause, a list of errors and large details within it', () => {
    const long = { code: ErrorCode.REJECTED, message: body(50_000), details: {} };
    const error = {
      code: ErrorCode.CANCELLED,
      message: body(20_000),
      details: {
        id: 'o-1',
        cause: long,
        compensationErrors: Array.from({ length: 15 }, () => long),
      },
    };
    const cut = journalError(error);
    expect(size(cut)).toBeLessThanOrEqual(MAX_JOURNAL_ERROR_BYTES);
    expect(cut.message).toHaveLength(2_000 + '… (18013 more characters cut)'.length);
    expect(cut.message.endsWith('… (18013 more characters cut)')).toBe(true);
    // Cut that far, the three still do not fit together: the details go, their size said.
    expect(cut.details).toEqual({ detailsCut: size(error.details) });

    const fits = journalError({ ...error, details: { id: 'o-1', cause: long } });
    expect(fits.details.id).toBe('o-1');
    expect((fits.details.cause as SerializedError).message).toMatch(/more characters cut\)$/);
    const listed = journalError({
      ...error,
      details: { errors: Array.from({ length: 12 }, (_, n) => ({ ...long, message: `e${n}` })) },
    });
    expect(listed.details.errors).toHaveLength(10);
    expect(listed.details.errorsCut).toBe(2);
  });
});
