/**
 * State schema versions: a definition at `version: n` migrates records written by earlier
 * versions on load, step by step, for handlers and queries alike; what it cannot read yet waits.
 */
import { actor, ErrorCode, query, silentLogger, TerminalError } from '@baton/core';
import { Registry } from '@baton/core/adapter';
import { Client } from '@baton/core/client';
import { createEngine, redriveDeadLetter, Worker } from '@baton/core/engine';
import { createEmbeddedBackend } from '@baton/embedded';
import { evaluateQuery } from '@baton/server/evaluation';
import { ProfileV1, ProfileV2 } from '@baton/testing/conformance';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { runUntilIdle, settled, virtualClock } from './helpers.ts';

/** One embedded backend, and a worker and client for any version of the definitions. */
function deployment() {
  const clock = virtualClock();
  const backend = createEmbeddedBackend({ clock });
  const deploy = (actors: Parameters<typeof createEngine>[0]['actors'], maxAttempts = 3) => {
    const engine = createEngine({
      actors,
      store: backend.store,
      queue: backend.queue,
      clock,
      logger: silentLogger,
      maxAttempts,
    });
    const worker = new Worker(engine);
    const client = new Client({
      actors,
      store: backend.store,
      queue: backend.queue,
      clock,
    }).asSystem();
    return { client, run: () => runUntilIdle(worker, backend, clock) };
  };
  return { backend, deploy };
}

/** Version 3: adds a display name, computed from version 2's fields. */
const ProfileV3 = actor({
  name: 'profile',
  version: 3,
  migrate: {
    ...ProfileV2.migrate,
    2: (old: { first: string; last: string; renames: number }) => ({
      ...old,
      display: `${old.first} ${old.last}`.trim(),
    }),
  },
  state: z.object({
    first: z.string(),
    last: z.string(),
    renames: z.number(),
    display: z.string(),
  }),
  initial: () => ({ first: '', last: '', renames: 0, display: '' }),
  handlers: {
    get: { payload: z.object({}), handle: (ctx) => ctx.state },
    refuse: {
      payload: z.object({}),
      handle: (ctx) => {
        ctx.state.display = 'changed';
        throw new TerminalError('no');
      },
    },
  },
});

/** A deployment whose store holds ada's record as version 1 wrote it. */
async function adaOnVersion1() {
  const deployed = deployment();
  const v1 = deployed.deploy([ProfileV1]);
  await v1.client.send(ProfileV1.ref('ada'), 'rename', { name: 'Ada Lovelace' });
  await v1.run();
  return deployed;
}

/** `ProfileV2` whose migration from version 1 throws `thrown`. */
function migrationThrowing(thrown: Error) {
  return actor({
    ...ProfileV2,
    migrate: {
      1: () => {
        throw thrown;
      },
    },
  });
}

describe('state versions', () => {
  it('migrate a version 1 record through every step to version 3', async () => {
    const { backend, deploy } = await adaOnVersion1();
    const v3 = deploy([ProfileV3]);
    const got = v3.client.ask(ProfileV3.ref('ada'), 'get', {});
    await v3.run();
    expect(await got).toEqual({
      first: 'Ada',
      last: 'Lovelace',
      renames: 0,
      display: 'Ada Lovelace',
    });
    expect(await backend.store.load('profile/ada')).toMatchObject({ stateVersion: 3, ver: 2 });
  });

  it('leave the record at its version when the message is rejected', async () => {
    const { backend, deploy } = await adaOnVersion1();
    const v3 = deploy([ProfileV3]);
    const refused = settled(v3.client.ask(ProfileV3.ref('ada'), 'refuse', {}));
    await v3.run();
    expect(await refused).toMatchObject({ ok: false, error: { code: ErrorCode.REJECTED } });
    expect(await backend.store.load('profile/ada')).toMatchObject({
      state: { name: 'Ada Lovelace' },
      stateVersion: 1,
    });
  });

  it('let an older definition wait, not apply, on a record a newer one wrote', async () => {
    const { backend, deploy } = deployment();
    const v2 = deploy([ProfileV2]);
    await v2.client.send(ProfileV2.ref('ada'), 'rename', { first: 'Ada', last: 'Lovelace' });
    await v2.run();
    const stale = deploy([ProfileV1], 2);
    const late = settled(stale.client.ask(ProfileV1.ref('ada'), 'rename', { name: 'X' }));
    await stale.run();
    // It kept failing with a retryable error until the engine ended it, kept to redrive.
    expect(await late).toMatchObject({ ok: false, error: { code: ErrorCode.DEAD_LETTERED } });
    expect(await backend.store.load('profile/ada')).toMatchObject({
      state: { first: 'Ada', last: 'Lovelace', renames: 1 },
      stateVersion: 2,
    });
  });

  it('retry a message whose migration throws, leaving the record unmigrated', async () => {
    const { backend, deploy } = await adaOnVersion1();
    const Broken = migrationThrowing(new Error('this migration has a bug'));
    const broken = deploy([Broken], 2);
    const got = settled(broken.client.ask(Broken.ref('ada'), 'get', {}));
    await broken.run();
    expect(await got).toMatchObject({ ok: false, error: { code: ErrorCode.DEAD_LETTERED } });
    expect((await backend.store.load('profile/ada'))?.stateVersion).toBe(1);
  });

  it('keep a message whose migration throws a TerminalError as a dead letter, and apply it once the migration is fixed', async () => {
    const { backend, deploy } = await adaOnVersion1();
    // The migration refuses the old record: the stored state's fault, not the messages'.
    const Broken = migrationThrowing(new TerminalError('cannot split an old name'));
    const broken = deploy([Broken]);
    const got = settled(broken.client.ask(Broken.ref('ada'), 'get', {}));
    await broken.client.send(Broken.ref('ada'), 'rename', { first: 'Ada', last: 'King' });
    await broken.run();
    expect(await got).toMatchObject({
      ok: false,
      error: {
        code: ErrorCode.DEAD_LETTERED,
        details: {
          cause: {
            code: ErrorCode.RETRYABLE,
            message: expect.stringMatching(
              /migrate step from version 1 threw .*: fix the migration, deploy, then redrive it$/,
            ),
            details: { actorId: 'profile/ada', stateVersion: 1, migrateStep: 1 },
          },
        },
      },
    });
    expect((await backend.store.load('profile/ada'))?.stateVersion).toBe(1);

    // The fix is deployed; both messages are redriven and applied.
    const fixed = deploy([ProfileV2]);
    const letters = await backend.store.listDeadLetters('profile/ada');
    expect(letters.map((letter) => letter.envelope.name).sort()).toEqual(['get', 'rename']);
    // The get is a client's ask, told DEAD_LETTERED: nobody acted on that answer here.
    for (const letter of letters) {
      await redriveDeadLetter(backend.store, backend.queue, 'profile/ada', letter.messageId, {
        force: true,
      });
    }
    await fixed.run();
    expect(await backend.store.load('profile/ada')).toMatchObject({
      state: { first: 'Ada', last: 'King', renames: 1 },
      stateVersion: 2,
    });
    expect(await backend.store.listDeadLetters('profile/ada')).toEqual([]);
  });

  it('keep a message as a dead letter when a migration leaves a Set in state, leaving the record unmigrated', async () => {
    const { backend, deploy } = await adaOnVersion1();
    const Aliased = actor({
      ...ProfileV2,
      state: ProfileV2.state.extend({ aliases: z.unknown() }),
      initial: () => ({ first: '', last: '', renames: 0, aliases: [] as unknown }),
      migrate: {
        1: (old: { name: string }) => {
          const [first = '', ...rest] = old.name.split(' ');
          return { first, last: rest.join(' '), renames: 0, aliases: new Set([old.name]) };
        },
      },
    });
    const aliased = deploy([Aliased]);
    const got = settled(aliased.client.ask(Aliased.ref('ada'), 'get', {}));
    await aliased.run();
    expect(await got).toMatchObject({
      ok: false,
      error: {
        code: ErrorCode.DEAD_LETTERED,
        details: { cause: { code: ErrorCode.INVALID_STATE, details: { path: 'state.aliases' } } },
      },
    });
    expect(await backend.store.load('profile/ada')).toMatchObject({
      state: { name: 'Ada Lovelace' },
      stateVersion: 1,
    });
    expect(await backend.store.listDeadLetters('profile/ada')).toHaveLength(1);
  });

  it("keep what a migration threw by surprise from the asker, as any unexpected error's text (the dead letter keeps it)", async () => {
    const { backend, deploy } = await adaOnVersion1();
    const Broken = migrationThrowing(new Error('ECONNREFUSED postgres://admin:secret@db.internal'));
    const broken = deploy([Broken]);
    const got = settled(broken.client.ask(Broken.ref('ada'), 'get', {}));
    await broken.run();
    const told = await got;
    expect(told).toMatchObject({ ok: false, error: { code: ErrorCode.DEAD_LETTERED } });
    expect(JSON.stringify(told)).not.toContain('secret');
    expect(JSON.stringify(await backend.store.listDeadLetters('profile/ada'))).toContain(
      'admin:secret',
    );
  });

  it("let a query meet a migration's own error, not a message's wait", async () => {
    const { backend } = await adaOnVersion1();
    const Broken = migrationThrowing(new TerminalError('cannot split an old name'));
    const name = query({
      name: 'name',
      args: z.object({}),
      handler: async (ctx) => (await ctx.get(Broken.ref('ada'))).first,
    });
    const { outcome } = await evaluateQuery(name, {}, undefined, {
      registry: new Registry([Broken]),
      store: backend.store,
    });
    expect(outcome).toMatchObject({ ok: false, error: { message: 'cannot split an old name' } });
  });

  it('let queries read an old record as the current version has it', async () => {
    const { backend } = await adaOnVersion1();
    const display = query({
      name: 'display',
      args: z.object({ key: z.string() }),
      handler: async (ctx, { key }) => (await ctx.get(ProfileV3.ref(key))).display,
    });
    const { outcome } = await evaluateQuery(display, { key: 'ada' }, undefined, {
      registry: new Registry([ProfileV3]),
      store: backend.store,
    });
    expect(outcome).toEqual({ ok: true, text: '"Ada Lovelace"' });
    // Reading migrates nothing in the store.
    expect((await backend.store.load('profile/ada'))?.stateVersion).toBe(1);
  });

  it('name a field the schema gained without a version, missing from a record written before, as the likely cause', async () => {
    const { backend, deploy } = await adaOnVersion1();
    // The deploy adds a field to the schema, but no version and no migrate step.
    const Gained = actor({
      ...ProfileV1,
      state: z.object({ name: z.string(), nickname: z.string() }),
      initial: () => ({ name: '', nickname: '' }),
    });
    const gained = deploy([Gained]);
    const renamed = settled(gained.client.ask(Gained.ref('ada'), 'rename', { name: 'Ada' }));
    await gained.run();
    const outcome = await renamed;
    expect(outcome).toMatchObject({ ok: false, error: { code: ErrorCode.DEAD_LETTERED } });
    const { message } = (outcome as { error: { message: string } }).error;
    // The likely cause leads, then the handler, what became of the message, and the fix.
    expect(message).toMatch(
      /^state of profile\/ada lacks a field its schema requires \(state\.nickname: [^)]*received undefined\) as handler "rename" left it: most often one the schema gained since the record was written/,
    );
    expect(message).toMatch(/else one the handler removed; the state is unchanged/);
    expect(message).toMatch(
      /kept as a dead letter: raise the actor's version with a migrate step that adds it \(or fix the handler\), deploy, then redrive it$/,
    );
    expect((await backend.store.load('profile/ada'))?.state).toEqual({ name: 'Ada Lovelace' });
  });

  it('refuse a definition without a migrate step from each earlier version', () => {
    expect(() => actor({ ...ProfileV3, migrate: { 2: ProfileV3.migrate![2]! } })).toThrow(
      expect.objectContaining({
        code: ErrorCode.INVALID_ARGUMENT,
        message: expect.stringContaining('has no migrate step from version 1'),
      }),
    );
    expect(() => actor({ ...ProfileV1, version: 0 })).toThrow(/version must be an integer ≥ 1/);
  });
});
