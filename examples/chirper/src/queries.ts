/**
 * Chirper's live queries. `timeline` is the paper's GetTimeline: it reads the user's actor and
 * then, in parallel, the actor of everyone they follow — every one of those reads is a
 * dependency, so a subscriber gets a new timeline when any of them posts, and the set of
 * actors read follows the user's own `following` list as it changes.
 */
import { query } from '@baton/core';
import * as z from 'zod';
import { User, UserName } from './chirper.ts';

/** A post on a timeline: its author and the post. */
export interface TimelinePost {
  readonly author: string;
  readonly id: number;
  readonly at: number;
  readonly text: string;
}

/** Newest first; posts of the same millisecond by author, then newest first. */
function newestFirst(a: TimelinePost, b: TimelinePost): number {
  return b.at - a.at || (a.author < b.author ? -1 : a.author > b.author ? 1 : b.id - a.id);
}

export const timeline = query({
  name: 'timeline',
  public: true,
  args: z.object({ user: UserName, limit: z.number().int().min(1).max(100).default(30) }),
  handler: async (ctx, { user, limit }) => {
    const me = await ctx.get(User.ref(user));
    const authors = [user, ...me.following];
    const states = [me, ...(await Promise.all(me.following.map((f) => ctx.get(User.ref(f)))))];
    const posts = states
      .flatMap((state, i) => state.posts.map((post) => ({ author: authors[i]!, ...post })))
      .sort(newestFirst)
      .slice(0, limit);
    return { user, following: me.following, posts };
  },
});

/** One user at a glance: whom they follow, who follows them, how many posts they keep. */
export const profile = query({
  name: 'profile',
  public: true,
  args: z.object({ user: UserName }),
  handler: async (ctx, { user }) => {
    const { following, followers, posts } = await ctx.get(User.ref(user));
    return { user, following, followers, posts: posts.length };
  },
});
