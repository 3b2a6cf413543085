/**
 * A profile actor in two versions of its definition: version 1 keeps one `name`; version 2
 * splits it into `first` and `last` and counts renames, migrating version 1's records.
 */
import { actor } from '@baton/core';
import * as z from 'zod';

export const ProfileV1 = actor({
  name: 'profile',
  state: z.object({ name: z.string() }),
  initial: () => ({ name: '' }),
  handlers: {
    rename: {
      payload: z.object({ name: z.string() }),
      handle: (ctx, { name }) => {
        ctx.state.name = name;
      },
    },
  },
});

export const ProfileV2 = actor({
  name: 'profile',
  version: 2,
  migrate: {
    1: (old: { name: string }) => {
      const [first = '', ...rest] = old.name.split(' ');
      return { first, last: rest.join(' '), renames: 0 };
    },
  },
  state: z.object({ first: z.string(), last: z.string(), renames: z.number() }),
  initial: () => ({ first: '', last: '', renames: 0 }),
  handlers: {
    rename: {
      payload: z.object({ first: z.string(), last: z.string() }),
      handle: (ctx, { first, last }) => {
        ctx.state.first = first;
        ctx.state.last = last;
        ctx.state.renames++;
        return ctx.state;
      },
    },
    get: {
      payload: z.object({}),
      handle: (ctx) => ctx.state,
    },
  },
});
