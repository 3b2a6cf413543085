/**
 * Chirper on the embedded backend: posts, following kept on both sides, the timeline's contents
 * and order, refused input, and a live timeline that follows what its user follows.
 */
import {
  type AnyQueryDefinition,
  type ArgsOf,
  ErrorCode,
  type ResultOf,
  silentLogger,
} from '@baton/core';
import { Registry } from '@baton/core/adapter';
import { type EmbeddedRuntime, startEmbedded } from '@baton/embedded';
import { QueryEngine, type QueryUpdate } from '@baton/server';
import { evaluateQuery } from '@baton/server/evaluation';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import app from './app.ts';
import { MAX_FOLLOWING, MAX_POST_LENGTH, MAX_POSTS, User } from './chirper.ts';
import { profile, timeline } from './queries.ts';

let runtime: EmbeddedRuntime;
beforeEach(() => {
  runtime = startEmbedded({ actors: app.actors, logger: silentLogger });
});
afterEach(() => runtime.stop());

const user = (key: string) => User.ref(key);
const ask: EmbeddedRuntime['client']['ask'] = (ref, name, payload, options) =>
  runtime.client.ask(ref, name, payload, options);

/** Runs a query once against committed state, once every message has been processed. */
async function read<Q extends AnyQueryDefinition>(q: Q, args: ArgsOf<Q>): Promise<ResultOf<Q>> {
  await runtime.idle();
  const { outcome } = await evaluateQuery(q, q.args.parse(args), undefined, {
    registry: new Registry(app.actors),
    store: runtime.backend.store,
  });
  if (!outcome.ok) throw outcome.error;
  return JSON.parse(outcome.text) as ResultOf<Q>;
}

/** Posts as `author` in a later millisecond than `after`, so timestamps order the posts. */
async function postAfter(author: string, text: string, after = 0) {
  while (Date.now() <= after) await new Promise((resolve) => setImmediate(resolve));
  return ask(user(author), 'post', { text });
}

const texts = async (key: string) => (await read(timeline, { user: key })).posts.map((p) => p.text);

describe('posts', () => {
  it('keeps a user’s posts with ids, times and trimmed text, and removes one on unpost', async () => {
    const before = Date.now();
    const first = await ask(user('alice'), 'post', { text: '  hello, world  ' });
    const second = await ask(user('alice'), 'post', { text: 'second' });
    expect(first).toEqual({ id: 1, at: expect.any(Number), text: 'hello, world' });
    expect(first.at).toBeGreaterThanOrEqual(before);
    expect(second.id).toBe(2);
    expect(await read(profile, { user: 'alice' })).toEqual({
      user: 'alice',
      following: [],
      followers: [],
      posts: 2,
    });

    await ask(user('alice'), 'unpost', { id: 1 });
    expect(await texts('alice')).toEqual(['second']);
  });

  it(`keeps the newest ${MAX_POSTS} posts`, async () => {
    for (let i = 1; i <= MAX_POSTS + 2; i += 1) await ask(user('alice'), 'post', { text: `#${i}` });
    const { posts } = await read(timeline, { user: 'alice', limit: 100 });
    expect(posts).toHaveLength(MAX_POSTS);
    expect(posts.map((p) => p.id).sort((a, b) => a - b)[0]).toBe(3);
  });
});

describe('following', () => {
  it('is kept on both sides: follow adds a follower, unfollow removes it', async () => {
    expect(await ask(user('bob'), 'follow', { user: 'alice' })).toBe(true);
    expect(await ask(user('carol'), 'follow', { user: 'alice' })).toBe(true);
    expect(await read(profile, { user: 'alice' })).toMatchObject({ followers: ['bob', 'carol'] });
    expect(await read(profile, { user: 'bob' })).toMatchObject({ following: ['alice'] });

    expect(await ask(user('bob'), 'unfollow', { user: 'alice' })).toBe(true);
    expect(await read(profile, { user: 'alice' })).toMatchObject({ followers: ['carol'] });
    expect(await read(profile, { user: 'bob' })).toMatchObject({ following: [] });
  });

  it('treats a repeated follow or unfollow as a no-op', async () => {
    await ask(user('bob'), 'follow', { user: 'alice' });
    expect(await ask(user('bob'), 'follow', { user: 'alice' })).toBe(false);
    expect(await read(profile, { user: 'alice' })).toMatchObject({ followers: ['bob'] });
    await ask(user('bob'), 'unfollow', { user: 'alice' });
    expect(await ask(user('bob'), 'unfollow', { user: 'alice' })).toBe(false);
    expect(await read(profile, { user: 'alice' })).toMatchObject({ followers: [] });
  });

  it('ends consistent on both sides after quick follow / unfollow flips (sent in order)', async () => {
    const flips = ['follow', 'unfollow', 'follow', 'unfollow', 'follow'] as const;
    for (const name of flips) await runtime.client.send(user('bob'), name, { user: 'alice' });
    expect(await read(profile, { user: 'bob' })).toMatchObject({ following: ['alice'] });
    expect(await read(profile, { user: 'alice' })).toMatchObject({ followers: ['bob'] });
  });

  it(`refuses to follow more than ${MAX_FOLLOWING} users`, async () => {
    await Promise.all(
      Array.from({ length: MAX_FOLLOWING }, (_, i) =>
        runtime.client.send(user('fan'), 'follow', { user: `star${i}` }),
      ),
    );
    await runtime.idle();
    await expect(ask(user('fan'), 'follow', { user: 'one-more' })).rejects.toMatchObject({
      code: ErrorCode.REJECTED,
      message: expect.stringContaining(`already follows ${MAX_FOLLOWING} users`),
    });
    expect((await read(profile, { user: 'fan' })).following).toHaveLength(MAX_FOLLOWING);
  });
});

describe('bad input', () => {
  it('refuses following yourself', async () => {
    await expect(ask(user('alice'), 'follow', { user: 'alice' })).rejects.toMatchObject({
      code: ErrorCode.REJECTED,
      message: expect.stringContaining('cannot follow themselves'),
    });
    expect(await read(profile, { user: 'alice' })).toMatchObject({ following: [], followers: [] });
  });

  it('refuses empty, blank and too long posts, naming the field', async () => {
    for (const text of ['', '   ', 'x'.repeat(MAX_POST_LENGTH + 1)]) {
      await expect(ask(user('alice'), 'post', { text })).rejects.toMatchObject({
        code: ErrorCode.INVALID_PAYLOAD,
        message: expect.stringContaining('payload.text'),
      });
    }
    expect(await read(profile, { user: 'alice' })).toMatchObject({ posts: 0 });
  });

  it('refuses a malformed user name', async () => {
    await expect(ask(user('alice'), 'follow', { user: 'no spaces' })).rejects.toMatchObject({
      code: ErrorCode.INVALID_PAYLOAD,
      message: expect.stringContaining('payload.user'),
    });
  });

  it('refuses unposting a post that does not exist', async () => {
    await expect(ask(user('alice'), 'unpost', { id: 7 })).rejects.toMatchObject({
      code: ErrorCode.REJECTED,
      message: expect.stringContaining('alice has no post 7'),
    });
  });

  it('refuses a follower change sent by a client instead of the follower’s actor', async () => {
    // Internal: no client may send it at all.
    await expect(ask(user('alice'), 'addFollower', { follower: 'mallory' })).rejects.toMatchObject({
      code: ErrorCode.FORBIDDEN,
    });
    // Trusted code that sends it anyway is refused by the handler: only the follower's actor may.
    await expect(
      runtime.client.asSystem().ask(user('alice'), 'addFollower', { follower: 'mallory' }),
    ).rejects.toMatchObject({
      code: ErrorCode.REJECTED,
      message: expect.stringContaining("only mallory's own actor"),
    });
    expect(await read(profile, { user: 'alice' })).toMatchObject({ followers: [] });
  });
});

describe('the timeline', () => {
  it('merges the user’s own posts with those of everyone they follow, newest first', async () => {
    await ask(user('bob'), 'follow', { user: 'alice' });
    await ask(user('bob'), 'follow', { user: 'carol' });
    let last = (await postAfter('alice', 'a1')).at;
    last = (await postAfter('dave', 'd1 (not followed)', last)).at;
    last = (await postAfter('bob', 'b1', last)).at;
    last = (await postAfter('carol', 'c1', last)).at;
    await postAfter('alice', 'a2', last);

    const bob = await read(timeline, { user: 'bob' });
    expect(bob.following).toEqual(['alice', 'carol']);
    expect(bob.posts.map((p) => `${p.author}:${p.text}`)).toEqual([
      'alice:a2',
      'carol:c1',
      'bob:b1',
      'alice:a1',
    ]);
    expect(await texts('alice')).toEqual(['a2', 'a1']); // alice follows no one
    expect((await read(timeline, { user: 'bob', limit: 2 })).posts.map((p) => p.text)).toEqual([
      'a2',
      'c1',
    ]);
  });

  it('orders posts of the same millisecond by author, then newest first', async () => {
    // Two authors' turns may share a millisecond: the order is still total and stable.
    const engineTime = 1_700_000_000_000;
    await runtime.stop();
    runtime = startEmbedded({
      actors: app.actors,
      logger: silentLogger,
      clock: { now: () => engineTime },
    });
    await ask(user('bob'), 'follow', { user: 'alice' });
    await ask(user('bob'), 'post', { text: 'b1' });
    await ask(user('alice'), 'post', { text: 'a1' });
    await ask(user('alice'), 'post', { text: 'a2' });
    expect(await texts('bob')).toEqual(['a2', 'a1', 'b1']);
  });

  it('drops an unfollowed user’s posts', async () => {
    await ask(user('bob'), 'follow', { user: 'alice' });
    await ask(user('alice'), 'post', { text: 'hi bob' });
    expect(await texts('bob')).toEqual(['hi bob']);
    await ask(user('bob'), 'unfollow', { user: 'alice' });
    expect(await texts('bob')).toEqual([]);
  });
});

describe('the live timeline', () => {
  let engine: QueryEngine;
  beforeEach(() => {
    engine = new QueryEngine({
      queries: app.queries,
      actors: app.actors,
      store: runtime.backend.store,
      feed: runtime.backend.feed,
      logger: silentLogger,
    });
  });
  afterEach(() => engine.close());

  function watch(args: ArgsOf<typeof timeline>) {
    const updates: QueryUpdate[] = [];
    const subscription = engine.subscribe({ query: 'timeline', args }, (u) => updates.push(u));
    const latest = () => {
      const update = updates.at(-1);
      if (update?.kind === 'error') throw new Error(update.error.message);
      return update?.value as ResultOf<typeof timeline> | undefined;
    };
    const shown = () => latest()?.posts.map((p) => `${p.author}:${p.text}`);
    return { updates, subscription, shown };
  }

  it('pushes a new timeline when a followed user posts, and none for others', async () => {
    await ask(user('bob'), 'follow', { user: 'alice' });
    await runtime.idle();
    const bob = watch({ user: 'bob' });
    await expect.poll(bob.shown).toEqual([]);
    expect(bob.subscription.dependsOn('user/alice')).toBe(true);

    await ask(user('alice'), 'post', { text: 'live!' });
    await expect.poll(bob.shown).toEqual(['alice:live!']);

    // carol is not followed: her posts are not read, so they push nothing.
    const pushes = bob.updates.length;
    await ask(user('carol'), 'post', { text: 'unseen' });
    await runtime.idle();
    await engine.flush();
    expect(bob.subscription.dependsOn('user/carol')).toBe(false);
    expect(bob.updates).toHaveLength(pushes);

    // Following carol adds her actor to the read set, with her earlier post.
    await ask(user('bob'), 'follow', { user: 'carol' });
    await expect.poll(bob.shown).toEqual(['carol:unseen', 'alice:live!']);
    expect(bob.subscription.dependsOn('user/carol')).toBe(true);
    await ask(user('carol'), 'post', { text: 'now seen' });
    await expect.poll(bob.shown).toEqual(['carol:now seen', 'carol:unseen', 'alice:live!']);

    // Unfollowing removes her from the read set again.
    await ask(user('bob'), 'unfollow', { user: 'carol' });
    await expect.poll(bob.shown).toEqual(['alice:live!']);
    expect(bob.subscription.dependsOn('user/carol')).toBe(false);
  });

  it('refuses a subscription with a malformed user name, naming the field', () => {
    expect(() => watch({ user: 'a/b' })).toThrow(
      expect.objectContaining({
        code: ErrorCode.INVALID_PAYLOAD,
        message: expect.stringMatching(/args\.user: a user name is/),
      }),
    );
  });

  it('shows a deleted post disappearing', async () => {
    const alice = watch({ user: 'alice' });
    const { id } = await ask(user('alice'), 'post', { text: 'oops' });
    await expect.poll(alice.shown).toEqual(['alice:oops']);
    await ask(user('alice'), 'unpost', { id });
    await expect.poll(alice.shown).toEqual([]);
  });
});
