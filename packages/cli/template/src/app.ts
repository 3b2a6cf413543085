/**
 * The app: what `baton dev src/app.ts` runs (with web/page.tsx as its page) and what
 * infra/app.ts deploys.
 */
import { defineApp } from '@baton/core';
import { Counter } from './counter.ts';
import { count } from './queries.ts';

export default defineApp({
  actors: [Counter],
  queries: [count],
  // Who a WebSocket connection is. Everyone is a guest here, so the app deployed as it is lets
  // anyone who reaches its URL count; a real app checks a token, e.g. with jwtAuth from
  // @baton/aws/auth (npm install aws-jwt-verify too), and handlers see the user as ctx.caller.
  auth: () => ({ guest: true }),
});
