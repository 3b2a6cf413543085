/**
 * Chirper as one app: what `baton dev src/app.ts` serves (with web/page.tsx as its page) and
 * what a deployment bundles.
 */
import { defineApp } from '@baton/core';
import { User } from './chirper.ts';
import { profile, timeline } from './queries.ts';

export default defineApp({ actors: [User], queries: [timeline, profile] });
