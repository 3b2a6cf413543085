import { describe, expect, it } from 'vitest';
import type { Caller } from '../caller.ts';
import { ofEarlierRun } from './instanceStart.ts';
import type { WorkflowState } from './journal.ts';

/** A running child's record: started by `caller`, for the parent's run `parentRun`. */
const child = (caller: Caller | undefined, parentRun?: string): WorkflowState => ({
  status: 'running',
  ...(caller && { caller }),
  ...(parentRun !== undefined && { parentRun }),
  journal: [],
  completed: 0,
  signals: [],
  notify: [],
});

const parent = 'wf:order/42';
const byParent: Caller = { kind: 'actor', actor: parent };

describe('ofEarlierRun', () => {
  it("tells a child started by another run of its parent's id from one of this run", () => {
    expect(ofEarlierRun(child(byParent, 'run-1'), parent, 'run-2')).toBe(true);
    expect(ofEarlierRun(child(byParent, 'run-1'), parent, 'run-1')).toBe(false);
  });

  it('adopts what it cannot tell: records an earlier release wrote, commands of one, other starters', () => {
    const cases: [string, WorkflowState, string | undefined][] = [
      // An earlier release wrote no parentRun in the child…
      ['no parentRun', child(byParent), 'run-2'],
      // …and sent no run in the parent's command.
      ['no run in the command', child(byParent, 'run-1'), undefined],
      // Started by another actor (the caller check before refuses it as not the parent's).
      ['another actor', child({ kind: 'actor', actor: 'wf:order/7' }, 'run-1'), 'run-2'],
      ['the system', child({ kind: 'system' }, 'run-1'), 'run-2'],
      ['no caller', child(undefined, 'run-1'), 'run-2'],
    ];
    for (const [why, state, run] of cases) {
      expect({ why, earlier: ofEarlierRun(state, parent, run) }).toEqual({ why, earlier: false });
    }
  });
});
