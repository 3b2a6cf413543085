import { describe, expect, it } from 'vitest';
import type { ActorContext } from '../ActorContext.ts';
import { STATE_PAGES, type StatePages } from '../contextSlots.ts';
import { DROPS_PER_TURN, dropEarlierPages, dropHistory } from './history.ts';
import { newWorkflowState, type WorkflowState } from './journal.ts';

/** A turn's context as the drops see it: the record, and the pages it forgets (by id). */
function turnOf(state: WorkflowState): { ctx: ActorContext<WorkflowState>; dropped: string[] } {
  const dropped: string[] = [];
  const pages: StatePages = {
    keepBytes: 8 * 1024,
    put: () => undefined,
    drop: (id) => void dropped.push(id),
    read: async () => new Map(),
  };
  return {
    ctx: { state, [STATE_PAGES]: pages } as unknown as ActorContext<WorkflowState>,
    dropped,
  };
}

const ids = (run: string, from: number, to: number) =>
  Array.from({ length: from - to + 1 }, (_, i) => `wf:${run}:${from - i}`);

describe('forgetting history pages, a turn at a time', () => {
  it("drops the runs that continued as new newest first, at most a turn's worth", () => {
    const state = {
      ...newWorkflowState(),
      earlierPages: [
        { run: 'a', pages: 50 },
        { run: 'b', pages: 30 },
      ],
    };
    const first = turnOf(state);
    expect(dropEarlierPages(first.ctx)).toBe(DROPS_PER_TURN);
    expect(first.dropped).toEqual([...ids('a', 49, 0), ...ids('b', 29, 16)]);
    expect(state.earlierPages).toEqual([{ run: 'b', pages: 16 }]);

    const second = turnOf(state);
    expect(dropEarlierPages(second.ctx)).toBe(16);
    expect(second.dropped).toEqual(ids('b', 15, 0));
    expect(state).not.toHaveProperty('earlierPages');
  });

  it("drops an ended instance's earlier runs' pages first, then its run's, sharing one budget", () => {
    const state: WorkflowState = {
      ...newWorkflowState(),
      runId: 'r',
      sealed: { entries: 300, pages: 100 },
      earlierPages: [{ run: 'a', pages: 10 }],
    };
    const first = turnOf(state);
    expect(dropHistory(first.ctx)).toBe(false);
    expect(first.dropped).toEqual([...ids('a', 9, 0), ...ids('r', 99, 46)]);
    expect(state.sealed).toEqual({ entries: 300, pages: 46 });

    const second = turnOf(state);
    expect(dropHistory(second.ctx)).toBe(true);
    expect(second.dropped).toEqual(ids('r', 45, 0));
    expect(state.sealed).toEqual({ entries: 300, pages: 0 });

    const none = turnOf({ ...newWorkflowState(), earlierPages: [{ run: 'a', pages: 70 }] });
    expect(dropHistory(none.ctx)).toBe(false);
    expect(none.dropped).toHaveLength(DROPS_PER_TURN);
    expect(dropHistory(turnOf(none.ctx.state).ctx)).toBe(true);
  });
});
