/**
 * The bank as one app: what a deployment bundles (the CDK construct's `entry`) and what a host
 * serves. Users sign in with a signed demo token (demoAuth.ts); what each may do is declared on
 * the handlers and the query (bank.ts, queries.ts).
 */
import { defineApp } from '@baton/core';
import { Account } from './bank.ts';
import { demoAuth } from './demoAuth.ts';
import { balances } from './queries.ts';

export default defineApp({ actors: [Account], queries: [balances], auth: demoAuth });
