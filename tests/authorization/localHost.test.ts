/**
 * The bank example behind the local WebSocket host (what `pnpm start` and `baton dev` serve):
 * an anonymous connection and another user's connection try every internal handler, alice's
 * actor and alice's view. Each is refused with FORBIDDEN, nothing is applied and nothing leaks;
 * alice herself still may, but not from a page on another site.
 */
import { BatonClient } from '@baton/client';
import { type BatonError, silentLogger } from '@baton/core';
import { type EmbeddedRuntime, startEmbedded } from '@baton/embedded';
import { createLocalServer, type LocalServer } from '@baton/server/ws';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import bank from '../../examples/bank/src/app.ts';
import { Account } from '../../examples/bank/src/bank.ts';
import { TestSocket } from '../../packages/server/src/ws/fixtures/TestSocket.ts';
import { ALICE_BALANCE, attackFrames, attackIds, leaks, tokens } from './attacks.ts';

let runtime: EmbeddedRuntime;
let server: LocalServer;

beforeAll(async () => {
  runtime = startEmbedded({ actors: bank.actors, logger: silentLogger });
  await runtime.client.asSystem().ask(Account.ref('alice'), 'deposit', { amount: ALICE_BALANCE });
  server = await createLocalServer({
    actors: bank.actors,
    queries: bank.queries,
    backend: runtime,
    ...(bank.auth ? { auth: bank.auth } : {}),
    logger: silentLogger,
  });
});

afterAll(async () => {
  await server?.close();
  await runtime?.stop();
});

const open = (token?: string) =>
  TestSocket.open(server.url, { protocols: ['baton.v1', ...(token ? [`token.${token}`] : [])] });

describe('the bank behind the local WebSocket host', () => {
  it('refuses a connection without a valid token before it can send anything', async () => {
    for (const token of [undefined, `${tokens.mallory}x`]) {
      const socket = await open(token);
      expect((await socket.closed).code).toBe(4401);
    }
  });

  it('tells a client that connected without a token that it sent none, and how to give it one', async () => {
    const errors: BatonError[] = [];
    const client = new BatonClient({
      url: server.url,
      WebSocket,
      onError: (error) => errors.push(error),
    });
    try {
      await vi.waitFor(() => expect(client.connectionState).toBe('closed'));
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatchObject({
        code: 'UNAUTHENTICATED',
        details: { closeCode: 4401, tokenSent: false },
      });
      expect(errors[0]!.message).toMatch(
        /^the server refused the connection, which sent no token \(close code 4401: unauthorized\)/,
      );
      expect(errors[0]!.message).toContain('new BatonClient({ url, token })');
      expect(errors[0]!.message).not.toMatch(/refused the token|sign in again/);
    } finally {
      client.close();
    }
  });

  it('refuses every internal handler, alice’s actor and alice’s view to another user, applying nothing and leaking nothing', async () => {
    const before = await runtime.backend.store.load('account/alice');
    const mallory = await open(tokens.mallory);
    for (const frame of attackFrames('mallory')) mallory.send(frame);
    const { requests, subscriptions } = attackIds('mallory');
    await Promise.all([
      ...requests.map((id) => mallory.next('error', (f) => f.requestId === id)),
      ...subscriptions.map((id) => mallory.next('error', (f) => f.id === id)),
    ]);
    await mallory.roundTrip();
    await runtime.idle();

    expect(leaks(mallory.frames, 'mallory')).toEqual([]);
    // Nothing reached alice's account: not one message was applied to it.
    expect(await runtime.backend.store.load('account/alice')).toEqual(before);
    expect(server.engine.stats().subscriptions).toBe(0);
    mallory.close();
  });

  it('refuses the same to an anonymous connection of a host that accepts every connection', async () => {
    const open = await createLocalServer({
      actors: bank.actors,
      queries: bank.queries,
      backend: runtime,
      logger: silentLogger,
    });
    try {
      const before = await runtime.backend.store.load('account/alice');
      const anonymous = await TestSocket.open(open.url);
      for (const frame of attackFrames('anon')) anonymous.send(frame);
      const { requests, subscriptions } = attackIds('anon');
      await Promise.all([
        ...requests.map((id) => anonymous.next('error', (f) => f.requestId === id)),
        ...subscriptions.map((id) => anonymous.next('error', (f) => f.id === id)),
      ]);
      await anonymous.roundTrip();
      await runtime.idle();

      expect(leaks(anonymous.frames, 'anon')).toEqual([]);
      expect(await runtime.backend.store.load('account/alice')).toEqual(before);
      anonymous.close();
    } finally {
      await open.close();
    }
  });

  it("refuses a page on another site, though it holds alice's token, before anything runs for it", async () => {
    const refused = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const socket = new WebSocket(server.url, ['baton.v1', `token.${tokens.alice}`], {
        origin: 'https://evil.example',
      });
      socket.once('unexpected-response', (_request, response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => {
          body += chunk.toString('utf8');
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      });
      socket.once('open', () => reject(new Error('a page on another site connected')));
      socket.once('error', reject);
    });
    expect(refused.status).toBe(403);
    expect(refused.body).toContain('refused a WebSocket from a page on https://evil.example');
    expect(refused.body).toContain('allowedOrigins');
    expect(server.connections()).toEqual([]);
  });

  it('still lets alice move her own money and see her own balance', async () => {
    const alice = await open(tokens.alice);
    alice.send({
      v: 1,
      type: 'subscribe',
      id: 'mine',
      query: 'balances',
      args: { accounts: ['alice'] },
    });
    expect((await alice.push('mine')).type).toBe('result');
    alice.send({
      v: 1,
      type: 'ask',
      requestId: 'w',
      to: 'account/alice',
      name: 'withdraw',
      payload: { amount: 2 },
      idempotencyKey: 'w',
    });
    expect((await alice.next('reply')).value).toBe(ALICE_BALANCE - 2);
    alice.close();
  });
});
