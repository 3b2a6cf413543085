/**
 * Runs the app on the embedded backend behind the local WebSocket host, moves money, and prints
 * what a live subscriber saw, as one JSON line.
 */
import { BatonClient, type QueryState } from '@baton/client';
import { isBatonError } from '@baton/core';
import { startEmbedded } from '@baton/embedded';
import { createLocalServer } from '@baton/server/ws';
import { WebSocket } from 'ws';
import { Account, total } from './bank.js';

const app = startEmbedded({ actors: [Account] });
const server = await createLocalServer({
  actors: [Account],
  queries: [total],
  backend: app,
  logger: { debug() {}, info() {}, warn() {}, error() {} },
});
const browser = new BatonClient({ url: server.url, WebSocket });

const seen: number[] = [];
const settled = new Promise<void>((resolve) => {
  browser.subscribe(total, { accounts: ['alice', 'bob'] }, (state: QueryState<number>) => {
    if (state.status !== 'success') return;
    seen.push(state.data);
    if (state.data === 100) resolve();
  });
});

await app.client.ask(Account.ref('alice'), 'deposit', { amount: 100 });
const left = await browser.ask(Account.ref('alice'), 'transfer', { to: 'bob', amount: 30 });
let refused = '';
try {
  await app.client.ask(Account.ref('bob'), 'deposit', { amount: -1 });
} catch (error) {
  if (isBatonError(error)) refused = error.code;
}
await app.idle();
await settled;
const bob = await app.client.ask(Account.ref('bob'), 'deposit', { amount: 1 });

browser.close();
await server.close();
await app.stop();
console.log(JSON.stringify({ left, bob, refused, lastSeen: seen.at(-1) }));
