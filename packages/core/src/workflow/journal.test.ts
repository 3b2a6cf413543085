import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../errors.ts';
import { callMayBeApplied } from './journal.ts';
import { MAX_JOURNAL_VALUE_BYTES, replyTooLarge } from './journalLimits.ts';

describe('callMayBeApplied', () => {
  it('takes a call as maybe applied when no reply came, it was dead-lettered, or it was applied with too large a reply', () => {
    const cases = [
      [{ code: ErrorCode.ASK_TIMEOUT, details: {} }, true],
      [{ code: ErrorCode.DEAD_LETTERED, details: {} }, true],
      [{ code: ErrorCode.MESSAGE_TOO_LARGE, details: { applied: true } }, true],
      // Too large to send: never applied (an error journaled without details too).
      [{ code: ErrorCode.MESSAGE_TOO_LARGE } as never, false],
      [{ code: ErrorCode.MESSAGE_TOO_LARGE, details: { size: 1 } }, false],
      // A handler's own error may carry any details: refused, not applied.
      [{ code: ErrorCode.REJECTED, details: { applied: true } }, false],
    ] as const;
    for (const [error, applied] of cases)
      expect({ error, applied: callMayBeApplied(error) }).toEqual({ error, applied });
  });
});

describe('replyTooLarge', () => {
  it('refuses a reply past what a workflow journals per value, saying the call was applied', () => {
    // A string's JSON is its characters and two quotes.
    expect(replyTooLarge('stock.reserve', 'x'.repeat(MAX_JOURNAL_VALUE_BYTES - 2))).toBeUndefined();
    expect(replyTooLarge('stock.reserve', 'x'.repeat(MAX_JOURNAL_VALUE_BYTES - 1))).toMatchObject({
      code: ErrorCode.MESSAGE_TOO_LARGE,
      message: expect.stringMatching(
        /^the reply to call "stock.reserve" is 65537 bytes.*though the actor applied it/,
      ),
      details: { size: MAX_JOURNAL_VALUE_BYTES + 1, limit: MAX_JOURNAL_VALUE_BYTES, applied: true },
    });
  });
});
