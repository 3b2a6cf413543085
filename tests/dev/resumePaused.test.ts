/**
 * `baton dev`'s replay of the workflow instances left paused when its app process starts
 * (`resumePausedWorkflows`): each paused instance is resumed on the code running now, an
 * instance an earlier Baton started under an id `ref()` now refuses (`wf-<name>/…`) among them.
 */
import { workflow } from '@baton/core';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { resumePausedWorkflows } from '../../packages/cli/src/dev/child/resumePaused.ts';
import { workflowHarness } from '../workflow/harness.ts';

describe('resumePausedWorkflows', () => {
  it('resumes every paused instance, one whose id ref() refuses too', async () => {
    const code = { fixed: false };
    const Shift = workflow({
      name: 'shift',
      input: z.object({}),
      run: async (ctx) => {
        await ctx.sleep(1);
        if (!code.fixed) throw new TypeError('a bug');
        return 'done';
      },
    });
    const h = workflowHarness([Shift.actor]);
    const plain = await h.client.start(Shift, 's-2', {});
    await h.runAll({ until: h.clock.now() + 1_000 });
    // As `client.start(Shift, ref.id, {})` could start it before ref() and the start refused
    // such an id: its record, as that start and its turns left it.
    const odd = { id: 'wf-shift/wf-shift/s-1', type: 'wf-shift', key: 'wf-shift/s-1' };
    const { ver: _ver, ...paused } = (await h.record(plain.id))!;
    await h.backend.store.commit({
      expectedVer: 0,
      record: { ...paused, id: odd.id, ver: 1 },
      outbox: [],
      idempotency: [],
    });
    for (const id of [odd.id, plain.id]) {
      expect((await h.record(id))?.state).toMatchObject({ status: 'paused' });
    }

    code.fixed = true;
    const listActors = async () => [(await h.record(odd.id))!, (await h.record(plain.id))!];
    const backend = { store: h.backend.store, queue: h.backend.queue, listActors };
    const app = { workflows: [Shift], actors: [Shift.actor] };
    expect(await resumePausedWorkflows(app as never, backend as never)).toEqual([
      'shift/wf-shift/s-1',
      'shift/s-2',
    ]);
    await h.runAll({ until: h.clock.now() });
    for (const id of [odd.id, plain.id]) {
      expect((await h.record(id))?.state).toMatchObject({ status: 'completed', output: 'done' });
    }
  });
});
