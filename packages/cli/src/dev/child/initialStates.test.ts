/**
 * What `baton dev` tells at load of an actor whose `initial()` its own state schema refuses:
 * one line naming the actor, the issues and what to fix, where a turn would find it only at a
 * new actor's first message. An `initial()` taking the key is not called with an invented one.
 */
import { actor, defineApp, workflow } from '@baton/core';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { initialStateProblems } from './initialStates.ts';

const handlers = { touch: { payload: z.object({}), handle: () => {} } };

/** A tally whose `initial()` is `initial`, its schema `{ count: number }`. */
const tally = (name: string, initial: () => unknown, options: { validateState?: boolean } = {}) =>
  actor({
    name,
    state: z.object({ count: z.number() }),
    initial: initial as () => { count: number },
    handlers,
    ...options,
  });

describe('the check of initial states at load', () => {
  it('names an actor whose initial() its schema refuses, with the issues and what to fix', () => {
    const problems = initialStateProblems([
      tally('good', () => ({ count: 0 })),
      tally('tally', () => ({ count: '0' })),
    ]);
    expect(problems).toEqual([
      'initial() of tally returns state its schema refuses (state.count: Invalid input: expected number, received string): a message that leaves a new tally actor so is kept as a dead letter; make initial() return state the schema takes (or fix the schema)',
    ]);
  });

  it('checks the state as a turn does: as JSON', () => {
    // A field left undefined is no field once stored: the schema's required one is missing.
    expect(initialStateProblems([tally('gone', () => ({ count: undefined }))])).toEqual([
      expect.stringMatching(
        /^initial\(\) of gone returns state its schema refuses \(state\.count: [^)]*received undefined\)/,
      ),
    ]);
    expect(initialStateProblems([tally('big', () => ({ count: 1n }))])).toEqual([
      expect.stringMatching(
        /^initial\(\) of big returns state that is not JSON \(.*BigInt.*\): .*make initial\(\) return plain JSON values/,
      ),
    ]);
  });

  it('tells an initial() that throws, and goes on with the others', () => {
    const problems = initialStateProblems([
      tally('broken', () => {
        throw new Error('no config');
      }),
      tally('tally', () => ({})),
    ]);
    expect(problems).toEqual([
      'initial() of broken throws (no config): a new broken actor cannot start; fix initial()',
      expect.stringMatching(
        /^initial\(\) of tally returns state its schema refuses \(state\.count/,
      ),
    ]);
  });

  it('calls no initial() that takes the key, and leaves out an actor that checks no state', () => {
    let called = false;
    const byKey = actor({
      name: 'byKey',
      state: z.object({ count: z.number() }),
      initial: (key: string) => {
        called = true;
        return { count: Number(key) };
      },
      handlers,
    });
    const unchecked = tally('loose', () => ({ count: '0' }), { validateState: false });
    expect(initialStateProblems([byKey, unchecked])).toEqual([]);
    expect(called).toBe(false);
  });

  it('calls initial() with two keys and checks it only when it gives both the same state', () => {
    // No parameter named, but the key read all the same: by a default value, by `arguments`.
    const owned = (name: string, initial: () => unknown) =>
      actor({
        name,
        state: z.object({ owner: z.string().min(1) }),
        initial: initial as () => { owner: string },
        handlers,
      });
    const byDefault = owned('byDefault', ((key = '') => ({ owner: key })) as () => unknown);
    const byArguments = owned('byArguments', function (this: unknown) {
      // biome-ignore lint/complexity/noArguments: the case under test
      return { owner: arguments[0] === 'baton-dev-check-1' ? '' : 'x' };
    });
    const throwsForSome = owned('picky', ((key = '') => {
      if (key.endsWith('1')) throw new Error(`no owner for ${key}`);
      return { owner: key };
    }) as () => unknown);
    expect(initialStateProblems([byDefault, byArguments, throwsForSome])).toEqual([]);
  });

  it('refuses a Map or a Set in the initial state, as a turn does', () => {
    const tagged = actor({
      name: 'tagged',
      state: z.object({ tags: z.record(z.string(), z.string()) }),
      initial: () => ({ tags: new Map() as unknown as Record<string, string> }),
      handlers,
    });
    expect(initialStateProblems([tagged])).toEqual([
      expect.stringMatching(/^initial\(\) of tagged returns state that is not JSON \(.*Map/),
    ]);
  });

  it('tells a schema that cannot check the state synchronously, and goes on', () => {
    const checked = actor({
      name: 'remote',
      state: z.object({ count: z.number() }).refine(async () => true),
      initial: () => ({ count: 0 }),
      handlers,
    });
    expect(initialStateProblems([checked, tally('tally', () => ({}))])).toEqual([
      expect.stringMatching(/^the state schema of remote cannot check initial\(\)'s state \(/),
      expect.stringMatching(/^initial\(\) of tally returns state its schema refuses/),
    ]);
  });

  it("finds nothing in an app's own definitions, a workflow's included", () => {
    const Order = workflow({
      name: 'order',
      input: z.object({ sku: z.string() }),
      run: async () => 'done',
    });
    const app = defineApp({ actors: [tally('good', () => ({ count: 0 }))], workflows: [Order] });
    expect(app.actors.length).toBeGreaterThan(1);
    expect(initialStateProblems(app.actors)).toEqual([]);
  });
});
