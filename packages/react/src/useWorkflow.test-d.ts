import type {
  BatonError,
  SerializedError,
  WorkflowHistoryEntry,
  WorkflowStatus,
} from '@baton/core';
import { workflow } from '@baton/core';
import { describe, expectTypeOf, it } from 'vitest';
import * as z from 'zod';
import { useWorkflow, type WorkflowProgress } from './useWorkflow.ts';

const Fulfil = workflow({
  name: 'fulfil',
  input: z.object({ orderId: z.string() }),
  run: async (ctx, { orderId }) => {
    const charge = await ctx.step('charge', () => ({ id: `ch-${orderId}`, cents: 500 }));
    return { orderId, charge: charge.id, shipped: true as boolean };
  },
});

describe('useWorkflow types', () => {
  it('infers the output from the workflow definition', () => {
    const state = useWorkflow(Fulfil.ref('o-1'));
    expectTypeOf(state.status).toEqualTypeOf<'pending' | 'success' | 'error'>();
    expectTypeOf(state.error).toEqualTypeOf<BatonError | undefined>();
    if (state.status === 'success') {
      expectTypeOf(state.data).toEqualTypeOf<
        WorkflowProgress<{ orderId: string; charge: string; shipped: boolean }>
      >();
      expectTypeOf(state.data.status).toEqualTypeOf<WorkflowStatus>();
      expectTypeOf(state.data.output).toEqualTypeOf<
        { orderId: string; charge: string; shipped: boolean } | undefined
      >();
      expectTypeOf(state.data.error).toEqualTypeOf<SerializedError | undefined>();
      expectTypeOf(state.data.history).toEqualTypeOf<readonly WorkflowHistoryEntry[]>();
    }
  });

  it("types progress by the workflow's progress schema, unknown without one", () => {
    const Pack = workflow({
      name: 'pack',
      input: z.object({}),
      progress: z.object({ stage: z.enum(['packing', 'shipped']), at: z.date().optional() }),
      run: async () => null,
    });
    const state = useWorkflow(Pack.ref('p-1'));
    if (state.status === 'success') {
      // As JSON reads it back: a Date as its ISO string.
      expectTypeOf(state.data.progress).toEqualTypeOf<
        { stage: 'packing' | 'shipped'; at?: string } | undefined
      >();
    }
    const free = useWorkflow(Fulfil.ref('o-1'));
    if (free.status === 'success') expectTypeOf(free.data.progress).toEqualTypeOf<unknown>();
  });

  it('takes skip, and refuses what is not a workflow instance', () => {
    expectTypeOf(useWorkflow('skip').data).toEqualTypeOf<WorkflowProgress<unknown> | undefined>();
    // @ts-expect-error an id is not a ref: pass Fulfil.ref(id)
    useWorkflow('o-1');
    // @ts-expect-error a plain actor ref names no workflow
    useWorkflow({ type: 'wf-fulfil', key: 'o-1', id: 'wf-fulfil/o-1' });
  });
});
