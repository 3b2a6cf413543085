/**
 * A handler that throws an error with a conflict's code (VERSION_CONFLICT, DUPLICATE) — say,
 * from an operator action it called — is retried and dead-lettered as any retryable error: only
 * the engine's own check of a warm record makes a turn be done again (see messageEffects.ts).
 */
import { actor, BatonError, ErrorCode } from '@baton/core';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { setup } from './helpers.ts';

let calls = 0;
const Ledger = actor({
  name: 'ledger',
  state: z.object({ entries: z.array(z.string()) }),
  initial: () => ({ entries: [] }),
  handlers: {
    add: {
      payload: z.object({ entry: z.string(), code: z.string().optional() }),
      handle: (ctx, { entry, code }) => {
        if (code) {
          calls++;
          throw new BatonError(code as ErrorCode, `${code} from the handler`, {
            details: { actorId: ctx.self.id, keys: ['not-a-key'] },
          });
        }
        ctx.state.entries.push(entry);
      },
    },
  },
});

describe("a handler's error with a conflict's code", () => {
  it.each([ErrorCode.VERSION_CONFLICT, ErrorCode.DUPLICATE])(
    'is retried like any other (%s): the batch around it applied, the message dead-lettered',
    async (code) => {
      calls = 0;
      const h = setup({ actors: [Ledger], maxAttempts: 3, batchSize: 10 });
      await h.client.send(Ledger.ref('l'), 'add', { entry: 'a' });
      await h.client.send(Ledger.ref('l'), 'add', { entry: 'poison', code });
      await h.client.send(Ledger.ref('l'), 'add', { entry: 'b' });
      await h.run();
      expect(await h.state('ledger/l')).toEqual({ entries: ['a', 'b'] });
      expect(calls).toBe(3);
      expect(await h.backend.store.listDeadLetters('ledger/l')).toHaveLength(1);
    },
  );
});
