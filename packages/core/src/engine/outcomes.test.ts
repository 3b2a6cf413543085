import { describe, expect, it } from 'vitest';
import { ErrorCode, type SerializedError } from '../errors.ts';
import { errorGist } from './outcomes.ts';

/** An error nesting `codes` as causes, each with a message and details of its own. */
function nested(codes: readonly ErrorCode[]): SerializedError {
  const [code, ...inner] = codes;
  return {
    code: code!,
    message: `${code} ${'x'.repeat(2_000)}`,
    details: { bulk: 'y'.repeat(2_000), ...(inner.length > 0 && { cause: nested(inner) }) },
  };
}

describe('errorGist', () => {
  it("keeps every cause's code down to the innermost, an operator's first read, and cuts the rest", () => {
    // A deploy's letter: kept after it waited for code that knows its payload.
    const error = nested([ErrorCode.DEAD_LETTERED, ErrorCode.RETRYABLE, ErrorCode.INVALID_PAYLOAD]);
    const gist = errorGist(error, 4_000);
    expect(gist).toEqual({
      code: ErrorCode.DEAD_LETTERED,
      message: error.message.slice(0, 1_000),
      details: {
        truncated: true,
        cause: {
          code: ErrorCode.RETRYABLE,
          details: { cause: { code: ErrorCode.INVALID_PAYLOAD, details: {} } },
        },
      },
    });
  });

  it('keeps a cause stored as its code alone (a gist of an older release), with nothing under it', () => {
    const error = {
      ...nested([ErrorCode.DEAD_LETTERED]),
      details: { cause: { code: 'RETRYABLE' } },
    };
    expect(errorGist(error, 4_000).details).toEqual({
      truncated: true,
      cause: { code: 'RETRYABLE', details: {} },
    });
  });

  it('keeps no cause for an error without one, and stops at four levels of causes', () => {
    expect(errorGist(nested([ErrorCode.REJECTED]), 400).details).toEqual({ truncated: true });
    const deep = errorGist(nested(Array(8).fill(ErrorCode.RETRYABLE)), 4_000);
    expect(JSON.stringify(deep.details).match(/RETRYABLE/g)).toHaveLength(4);
  });
});
