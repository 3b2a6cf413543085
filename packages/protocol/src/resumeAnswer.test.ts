import { describe, expect, it } from 'vitest';
import { decodeServerMessage, encodeMessage } from './decodeFrame.ts';
import { resumeAnswer } from './resumeAnswer.ts';

const list = Array.from({ length: 50 }, (_, i) => ({ id: i, text: `item ${i}` }));
const current = { version: 9, hash: 'h9', value: { items: [{ id: 99, text: 'new' }, ...list] } };
const previous = { version: 8, hash: 'h8', value: { items: list } };

describe('resumeAnswer', () => {
  it('answers unchanged when the client holds the current value', () => {
    expect(resumeAnswer({ lastVersion: 9, hash: 'h9' }, current, previous)).toEqual({
      v: 1,
      type: 'unchanged',
      version: 9,
      hash: 'h9',
    });
  });

  it('answers unchanged with the new version when only the version moved (same hash)', () => {
    const answer = resumeAnswer({ lastVersion: 3, hash: 'h9' }, current);
    expect(answer).toMatchObject({ type: 'unchanged', version: 9 });
  });

  it('answers a patch from the previous value when the client holds exactly it', () => {
    const answer = resumeAnswer({ lastVersion: 8, hash: 'h8' }, current, previous);
    expect(answer).toEqual({
      v: 1,
      type: 'patch',
      version: 9,
      hash: 'h9',
      baseVersion: 8,
      ops: [{ op: 'add', path: '/items/0', value: { id: 99, text: 'new' } }],
    });
  });

  it('answers the full value when the client holds a version older than the previous one', () => {
    const answer = resumeAnswer({ lastVersion: 7, hash: 'h7' }, current, previous);
    expect(answer).toEqual({ v: 1, type: 'result', version: 9, hash: 'h9', value: current.value });
  });

  it('answers the full value when the previous value is unknown or its hash differs', () => {
    expect(resumeAnswer({ lastVersion: 8, hash: 'h8' }, current).type).toBe('result');
    const restarted = resumeAnswer({ lastVersion: 8, hash: 'old' }, current, previous);
    expect(restarted.type).toBe('result');
    // Without a hash to compare, the version alone decides.
    const noHash = { version: 8, value: previous.value };
    expect(resumeAnswer({ lastVersion: 8, hash: 'h8' }, current, noHash).type).toBe('patch');
  });

  it('answers the full value when a patch would not be smaller', () => {
    const small = { version: 2, hash: 'b', value: [2] };
    expect(
      resumeAnswer({ lastVersion: 1, hash: 'a' }, small, { version: 1, value: [1] }).type,
    ).toBe('result');
  });

  it('gives answers that become valid frames once the subscription id is added', () => {
    for (const client of [
      { lastVersion: 9, hash: 'h9' },
      { lastVersion: 8, hash: 'h8' },
      { lastVersion: 1, hash: 'x' },
    ]) {
      const frame = { ...resumeAnswer(client, current, previous), id: 's1' };
      expect(decodeServerMessage(encodeMessage(frame), { maxFrameBytes: 1e6 })).toEqual(frame);
    }
  });
});
