import { describe, expect, it } from 'vitest';
import { ErrorCode, type SerializedError } from '../errors.ts';
import { journalError, MAX_JOURNAL_ERROR_BYTES } from './journalError.ts';

const body = (chars: number) => `<html>${'x'.repeat(chars)}</html>`;
const size = (value: unknown) => Buffer.byteLength(JSON.stringify(value));
const error = (message: string, details: Record<string, unknown> = {}): SerializedError => ({
  code: ErrorCode.REJECTED,
  message,
  details,
});

describe('journalError', () => {
  it('keeps an error that fits as it is', () => {
    const small = error('no room', { room: 12 });
    expect(journalError(small)).toBe(small);
  });

  it("cuts a long message to 2,000 bytes, saying how much, and keeps a step's details and its cause's code", () => {
    // A step failing with a 7 KB message holds it twice: in its message and in its cause.
    const thrown = body(7_000);
    const step = {
      code: ErrorCode.STEP_FAILED,
      message: `step "notify" failed after 1 attempt: ${thrown}`,
      details: { step: 'notify', attempts: 1, cause: error(thrown) },
    };
    const cut = journalError(step);
    expect(size(cut)).toBeLessThanOrEqual(MAX_JOURNAL_ERROR_BYTES);
    expect(size(cut.message)).toBeLessThanOrEqual(2_000);
    expect(cut.message).toMatch(
      /^step "notify" failed after 1 attempt: <html>x+… \(\d+ more characters cut\)$/,
    );
    expect(cut.details).toMatchObject({ step: 'notify', attempts: 1, cause: { code: 'REJECTED' } });
  });

  it('keeps the first ten of a list of errors, each cut, and replaces a large detail by its size', () => {
    const list = Array.from({ length: 12 }, (_, n) => error(`undo ${n}: ${body(4_500)}`));
    const cut = journalError({
      code: ErrorCode.CANCELLED,
      message: 'cancelled: customer asked',
      details: { id: 'o-1', compensationErrors: list, dump: body(5_000) },
    });
    expect(size(cut)).toBeLessThanOrEqual(MAX_JOURNAL_ERROR_BYTES);
    expect(cut.details.id).toBe('o-1');
    expect(cut.details.compensationErrors).toHaveLength(10);
    expect((cut.details.compensationErrors as SerializedError[])[9]!.message).toMatch(/^undo 9: /);
    expect(cut.details.compensationErrorsCut).toBe(2);
    expect(cut.details.dump).toEqual({ cut: size(body(5_000)) });
  });

  it('counts escapes: a message of control characters stays within the budget', () => {
    const cut = journalError(error('\u0001'.repeat(5_000)));
    expect(size(cut)).toBeLessThanOrEqual(MAX_JOURNAL_ERROR_BYTES);
    expect(size(cut.message)).toBeLessThanOrEqual(2_000);
  });

  it('drops the details, naming their causes’ codes, when even cut they do not fit', () => {
    const many = Object.fromEntries(
      Array.from({ length: 40 }, (_, n) => [`k${n}`, 'y'.repeat(900)]),
    );
    const cut = journalError(error('failed', { ...many, cause: error('inner', { x: 1 }) }));
    expect(size(cut)).toBeLessThanOrEqual(MAX_JOURNAL_ERROR_BYTES);
    expect(cut).toMatchObject({
      code: 'REJECTED',
      message: 'failed',
      details: { causes: ['REJECTED'] },
    });
  });
});
