/**
 * Chirper, the running example of the paper "Reactive Computations for Distributed Actors": one
 * actor per user, holding the user's own posts and whom they follow. Following is kept on
 * both sides — `follow` adds to the follower's list and sends `addFollower` to the followed
 * user, which arrives exactly once and in order after any earlier follow or unfollow.
 */
import { actor, TerminalError } from '@baton/core';
import * as z from 'zod';

/** Posts a user keeps: older ones fall off, so a record stays far below the item size limit. */
export const MAX_POSTS = 50;
/** Whom a user may follow: a timeline reads every followed user's actor on each run. */
export const MAX_FOLLOWING = 100;
/** The longest post, in characters. */
export const MAX_POST_LENGTH = 280;

/** A user's name: the key of their actor. */
export const UserName = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,30}$/, 'a user name is 1–30 letters, digits, "_" or "-"');

const Post = z.object({
  /** 1, 2, … per author: `author` and `id` name a post. */
  id: z.number().int().positive(),
  /** When it was posted: the turn's time, epoch ms. */
  at: z.number(),
  text: z.string(),
});
export type Post = z.infer<typeof Post>;

const addName = (names: string[], name: string) => {
  if (!names.includes(name)) names.push(name);
  names.sort();
};
const removeName = (names: string[], name: string) => {
  const at = names.indexOf(name);
  if (at >= 0) names.splice(at, 1);
};

export const User = actor({
  name: 'user',
  state: z.object({
    /** Oldest first, at most {@link MAX_POSTS}. */
    posts: z.array(Post),
    nextPostId: z.number().int().positive(),
    /** Sorted. */
    following: z.array(z.string()),
    /** Sorted; changed only by the followers' own actors. */
    followers: z.array(z.string()),
  }),
  initial: () => ({ posts: [], nextPostId: 1, following: [], followers: [] }),
  handlers: {
    post: {
      public: true,
      payload: z.object({
        text: z
          .string()
          .trim()
          .min(1, 'a post needs some text')
          .max(MAX_POST_LENGTH, `a post has at most ${MAX_POST_LENGTH} characters`),
      }),
      handle: (ctx, { text }) => {
        const post = { id: ctx.state.nextPostId, at: ctx.now(), text };
        ctx.state.nextPostId += 1;
        ctx.state.posts.push(post);
        ctx.state.posts.splice(0, ctx.state.posts.length - MAX_POSTS);
        return post;
      },
    },
    unpost: {
      public: true,
      payload: z.object({ id: z.number().int().positive() }),
      handle: (ctx, { id }) => {
        const at = ctx.state.posts.findIndex((post) => post.id === id);
        if (at < 0) throw new TerminalError(`${ctx.self.key} has no post ${id}`);
        ctx.state.posts.splice(at, 1);
      },
    },
    /** Replies whether anything changed: following someone already followed is a no-op. */
    follow: {
      public: true,
      payload: z.object({ user: UserName }),
      handle: (ctx, { user }) => {
        if (user === ctx.self.key) throw new TerminalError('a user cannot follow themselves');
        if (ctx.state.following.includes(user)) return false;
        if (ctx.state.following.length >= MAX_FOLLOWING) {
          throw new TerminalError(
            `${ctx.self.key} already follows ${MAX_FOLLOWING} users, the most one may follow`,
          );
        }
        addName(ctx.state.following, user);
        ctx.send(User.ref(user), 'addFollower', { follower: ctx.self.key });
        return true;
      },
    },
    /** Replies whether anything changed. */
    unfollow: {
      public: true,
      payload: z.object({ user: UserName }),
      handle: (ctx, { user }) => {
        if (!ctx.state.following.includes(user)) return false;
        removeName(ctx.state.following, user);
        ctx.send(User.ref(user), 'removeFollower', { follower: ctx.self.key });
        return true;
      },
    },
    addFollower: {
      payload: z.object({ follower: UserName }),
      handle: (ctx, { follower }) => {
        checkSentBy(ctx.message.from, follower);
        addName(ctx.state.followers, follower);
      },
    },
    removeFollower: {
      payload: z.object({ follower: UserName }),
      handle: (ctx, { follower }) => {
        checkSentBy(ctx.message.from, follower);
        removeName(ctx.state.followers, follower);
      },
    },
  },
});

/** Followers are written only by the follower's own actor, never by a client. */
function checkSentBy(from: string, follower: string): void {
  if (from !== `user/${follower}`) {
    throw new TerminalError(
      `only ${follower}'s own actor may change whom ${follower} follows: send follow or unfollow to user/${follower}`,
    );
  }
}
