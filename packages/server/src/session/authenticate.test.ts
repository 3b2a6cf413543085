import { BatonError, ErrorCode } from '@baton/core';
import { describe, expect, it } from 'vitest';
import { authExpired, authenticate, authLapsed } from './authenticate.ts';

const NOW = 1_800_000_000_000;
const attempt = { token: 't', headers: {} };
const clock = { now: () => NOW };

describe('authenticate', () => {
  it('gives every connection the identity undefined, and no end, without a hook', async () => {
    expect(await authenticate(undefined, attempt, clock)).toEqual({ identity: undefined });
  });

  it('hands the hook the attempt and keeps the earliest end it set', async () => {
    const auth = (request: { token?: string; validUntil(at: number): void }) => {
      request.validUntil(NOW + 3_000);
      request.validUntil(NOW + 1_000);
      request.validUntil(NOW + 2_000);
      return { user: request.token };
    };
    expect(await authenticate(auth, attempt, clock)).toEqual({
      identity: { user: 't' },
      validUntil: NOW + 1_000,
    });
  });

  it('passes on what the hook threw', async () => {
    const refused = new Error('unknown token');
    const auth = async () => {
      throw refused;
    };
    await expect(authenticate(auth, attempt, clock)).rejects.toBe(refused);
  });

  it('refuses an end at the current time as UNAUTHENTICATED, naming the time', async () => {
    const auth = (request: { validUntil(at: number): void }) => request.validUntil(NOW);
    const error = await authenticate(auth, attempt, clock).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BatonError);
    expect(error).toMatchObject({ code: ErrorCode.UNAUTHENTICATED });
    expect((error as BatonError).message).toContain(new Date(NOW).toISOString());
  });
});

describe('an identity that is not plain JSON data', () => {
  /** What a verifier library may hand back: claims kept private, read through a getter. */
  class Session {
    readonly #sub: string;
    constructor(sub: string) {
      this.#sub = sub;
    }
    get userId(): string {
      return this.#sub;
    }
  }

  it.each([
    ['a class instance', () => new Session('alice'), 'identity is a Session'],
    ['a Map inside', () => ({ userId: 'alice', roles: new Map() }), 'identity.roles is a Map'],
    ['a Set in a list', () => ({ teams: [{ ids: new Set() }] }), 'identity.teams[0].ids is a Set'],
    ['a number JSON cannot write', () => ({ rank: Number.NaN }), 'identity.rank is NaN'],
    // JSON leaves these out: they may be all that tells two users apart.
    ['keyed by a symbol', () => ({ [Symbol.for('user')]: 'alice' }), 'identity has a symbol key'],
    [
      'a list with a named member',
      () => ({ ids: Object.assign(['a'], { user: 'alice' }) }),
      'identity.ids has a member "user" besides its elements',
    ],
    [
      'a hidden member',
      () => Object.defineProperty({}, 'user', { value: 'alice' }),
      'identity.user is not enumerable',
    ],
  ])(
    'is refused when it is %s, naming where, and saying what to return',
    async (_, auth, where) => {
      const error = (await authenticate(auth, attempt, clock).catch(
        (e: unknown) => e,
      )) as BatonError;
      expect(error).toBeInstanceOf(BatonError);
      expect(error.code).toBe(ErrorCode.INVALID_STATE);
      expect(error.message).toContain(`(${where})`);
      expect(error.message).toContain('Return plain data, e.g. { userId: session.userId }');
    },
  );

  it('is not what plain data is: objects, lists, strings, numbers, null', async () => {
    const identity = {
      userId: 'alice',
      groups: ['a', null, undefined],
      age: 3,
      admin: false,
      org: null,
      team: undefined,
    };
    const { identity: got } = await authenticate(() => identity, attempt, clock);
    expect(got).toBe(identity);
    expect((await authenticate(() => 'alice', attempt, clock)).identity).toBe('alice');
    expect((await authenticate(() => undefined, attempt, clock)).identity).toBeUndefined();
    const bare = Object.assign(Object.create(null) as object, { userId: 'alice' });
    expect((await authenticate(() => bare, attempt, clock)).identity).toBe(bare);
  });
});

describe('authenticate refuses', () => {
  const refusal = (auth: (request: { validUntil(at: number): void }) => unknown, now = clock) =>
    authenticate(auth, attempt, now).then(
      () => expect.fail('refused'),
      (e: unknown) => e as BatonError,
    );

  it.each([
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['past the last Date', 8.64e15 + 1],
    ['a string', '1800000000000' as unknown as number],
  ])('an end that is not a time: %s', async (_what, value) => {
    const error = await refusal((request) => request.validUntil(value));
    expect(error).toMatchObject({ code: ErrorCode.INVALID_ARGUMENT });
    expect(error.message).toMatch(/^validUntil takes a time in epoch milliseconds, got /);
  });

  it('an end that passed while the hook ran', async () => {
    let now = NOW;
    const slow = async (request: { validUntil(at: number): void }) => {
      request.validUntil(NOW + 1_000);
      now += 1_000; // the hook took a second
    };
    expect(await refusal(slow, { now: () => now })).toMatchObject({
      code: ErrorCode.UNAUTHENTICATED,
    });
  });

  it('a validUntil called after the hook settled, throwing at the late call', async () => {
    let late: () => void = () => {};
    const auth = (request: { validUntil(at: number): void }) => {
      late = () => request.validUntil(NOW + 1_000);
      return { user: 'u' };
    };
    expect(await authenticate(auth, attempt, clock)).toEqual({ identity: { user: 'u' } });
    expect(late).toThrow(/validUntil was called after the auth hook settled/);
  });
});

describe('authLapsed', () => {
  it('holds from the end on, never without one', () => {
    expect([NOW - 1, NOW, NOW + 1].map((now) => authLapsed(NOW, now))).toEqual([false, true, true]);
    expect(authLapsed(undefined, Number.MAX_SAFE_INTEGER)).toBe(false);
  });

  it('tells a closed connection when its token expired and what to do', () => {
    expect(authExpired(NOW).message).toBe(
      `the connection's token expired at ${new Date(NOW).toISOString()}: connect again with a ` +
        'fresh one (BatonClient does when its token option is a function)',
    );
  });
});
