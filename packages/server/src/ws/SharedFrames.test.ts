import { encodeMessage, type VersionedValue } from '@baton/protocol';
import { describe, expect, it } from 'vitest';
import type { QueryResult } from '../QueryUpdate.ts';
import { idTail, SharedFrames, withId } from './SharedFrames.ts';

const lines = (n: number) => Array.from({ length: 40 }, (_, i) => `line ${i + n}`);
const v1: QueryResult = {
  kind: 'result',
  version: 1,
  hash: 'h1',
  value: { total: 1, lines: lines(0) },
};
const v2: QueryResult = {
  kind: 'result',
  version: 2,
  hash: 'h2',
  value: { total: 2, lines: lines(0) },
};

describe('SharedFrames', () => {
  it('makes one frame per result and base, whatever the number of subscriptions', () => {
    const frames = new SharedFrames();
    const base = { version: 1, hash: 'h1', value: v1.value as never };
    const first = frames.of(v2, base);
    expect(frames.of(v2, { ...base })).toBe(first);
    expect(frames.of(v2, undefined)).not.toBe(first);
    expect(frames.of(v2, undefined)).toBe(frames.of(v2, undefined));
    expect(first?.frame.type).toBe('patch');
    expect(frames.of(v2, undefined)?.frame.type).toBe('result');
  });

  it('finds the frame from a base by the result object every stream was sent, or by its version and hash', () => {
    const frames = new SharedFrames();
    const sent = v1 as QueryResult & VersionedValue;
    const first = frames.of(v2, sent);
    expect(first?.frame).toMatchObject({ type: 'patch', baseVersion: 1 });
    expect(frames.of(v2, sent)).toBe(first);
    expect(frames.of(v2, { version: 1, hash: 'h1', value: v1.value as never })).toBe(first);
    expect(frames.of(v2, { ...sent, hash: 'other' })).not.toBe(first);
  });

  it('gives each subscription the same bytes as encoding the frame with its id', () => {
    const frames = new SharedFrames();
    const base = { version: 1, hash: 'h1', value: v1.value as never };
    for (const shared of [frames.of(v2, base)!, frames.of(v2, undefined)!]) {
      for (const id of ['s1', 'a "quoted" \u2028 id']) {
        const text = withId(shared, id);
        expect(text).toBe(encodeMessage({ ...shared.frame, id }));
        expect(JSON.parse(text).id).toBe(id);
        expect(shared.head + idTail(id)).toBe(text);
      }
    }
  });

  it('answers undefined for a result that cannot be encoded, so the sender reports it', () => {
    const frames = new SharedFrames();
    const bad: QueryResult = { kind: 'result', version: 1, hash: 'x', value: { n: 1n } };
    expect(frames.of(bad, undefined)).toBeUndefined();
    expect(frames.of(bad, undefined)).toBeUndefined();
  });
});
