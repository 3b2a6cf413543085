/**
 * A browser's trace context reaches the actors: a `traceparent` on a WebSocket send or ask is
 * carried by the message, and the handler logs its trace; a malformed one fails that request only.
 */
import { BatonClient } from '@baton/client';
import { actor, ErrorCode, jsonLogger, silentLogger } from '@baton/core';
import { startEmbedded } from '@baton/embedded';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import * as z from 'zod';
import { createLocalServer, type LocalServer } from './createLocalServer.ts';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';

const Echo = actor({
  name: 'echo',
  state: z.object({}),
  initial: () => ({}),
  handlers: {
    say: {
      public: true,
      payload: z.object({ text: z.string() }),
      handle: (ctx, { text }) => {
        ctx.log.info('said', { text });
        return text;
      },
    },
  },
});

let stop: () => Promise<void> = async () => {};
afterEach(() => stop());

async function start() {
  const lines: Record<string, unknown>[] = [];
  const logger = jsonLogger({ level: 'info', write: (line) => lines.push(JSON.parse(line)) });
  const app = startEmbedded({ actors: [Echo], logger });
  const server: LocalServer = await createLocalServer({
    actors: [Echo],
    queries: [],
    backend: app,
    logger: silentLogger,
  });
  const client = new BatonClient({ url: server.url, WebSocket });
  stop = async () => {
    client.close();
    await server.close();
    await app.stop();
  };
  return { client, lines };
}

describe('trace context over the local WebSocket host', () => {
  it('carries a traceparent from a send and an ask to the handler’s logs', async () => {
    const { client, lines } = await start();
    const traceparent = `00-${TRACE}-00f067aa0ba902b7-01`;
    expect(await client.ask(Echo.ref('a'), 'say', { text: 'asked' }, { traceparent })).toBe(
      'asked',
    );
    await client.send(Echo.ref('a'), 'say', { text: 'sent' }, { traceparent, visible: true });
    await client.send(Echo.ref('a'), 'say', { text: 'untraced' }, { visible: true });
    const said = (text: string) => lines.find((line) => line.text === text);
    expect(said('asked')).toMatchObject({ traceId: TRACE, parentSpanId: '00f067aa0ba902b7' });
    expect(said('sent')).toMatchObject({ traceId: TRACE });
    expect(said('untraced')).not.toHaveProperty('traceId');
  });

  it('refuses a malformed traceparent with INVALID_ARGUMENT for that request alone', async () => {
    const { client } = await start();
    await expect(
      client.ask(Echo.ref('a'), 'say', { text: 'x' }, { traceparent: 'not-a-trace' }),
    ).rejects.toMatchObject({ code: ErrorCode.INVALID_ARGUMENT });
    expect(await client.ask(Echo.ref('a'), 'say', { text: 'still fine' })).toBe('still fine');
  });
});
