/**
 * The bank as one app: what a deployment bundles (the CDK construct's `entry`) and what a host
 * serves.
 */
import { defineApp } from '@baton/core';
import { Account } from './bank.ts';
import { balances } from './queries.ts';

export default defineApp({ actors: [Account], queries: [balances] });
