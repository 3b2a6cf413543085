import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { actor } from '../actor.ts';
import { readableState } from './readableState.ts';
import { workflow } from './workflow.ts';

const Flow = workflow({ name: 'flow', input: z.object({}), run: async () => 'done' });
const Plain = actor({
  name: 'plain',
  state: z.object({ journal: z.array(z.object({ secret: z.string() })) }),
  initial: () => ({ journal: [] }),
  handlers: {},
});

describe('readableState', () => {
  it("leaves out the secrets of a workflow instance's callbacks, in its journal and pinned entries", () => {
    const plainEntry = { seq: 0, kind: 'step', name: 's', state: 'done' };
    const state = {
      status: 'waiting',
      journal: [
        plainEntry,
        { seq: 1, kind: 'callback', name: 'ok', state: 'pending', secret: 'j' },
      ],
      pinned: [{ seq: 2, kind: 'callback', name: 'late', state: 'pending', secret: 'p' }],
    };
    const read = readableState(Flow.actor, state) as typeof state;
    expect(JSON.stringify(read)).not.toMatch(/"secret"/);
    expect(read.journal[0]).toBe(plainEntry);
    expect(read.journal[1]).toEqual({ seq: 1, kind: 'callback', name: 'ok', state: 'pending' });
    expect(read.pinned).toEqual([{ seq: 2, kind: 'callback', name: 'late', state: 'pending' }]);
    expect(read.status).toBe('waiting');
    // The stored state itself is left as it was.
    expect(state.journal[1]).toHaveProperty('secret', 'j');
  });

  it("leaves another actor's state as it is, whatever its fields are called", () => {
    const state = { journal: [{ secret: 'mine' }] };
    expect(readableState(Plain, state)).toBe(state);
  });
});
