import { describe, expect, it } from 'vitest';
import { QueueState } from './QueueState.ts';

describe('QueueState', () => {
  it('forgets the dedupe ids recorded at or before a cutoff, and keeps the later ones', () => {
    const state = new QueueState();
    const send = (n: number) => ({ n, group: 'g', dedupeId: `d${n}`, body: '' });
    for (const at of [10, 20, 30]) {
      state.apply({ t: 'queue.send', q: 'inbox', at, msgs: [send(at / 10)] });
    }
    state.forgetDedupe(20);
    expect([...state.dedupe]).toEqual([['d3', 30]]);
    state.forgetDedupe(0);
    expect([...state.dedupe]).toEqual([['d3', 30]]);
  });
});
