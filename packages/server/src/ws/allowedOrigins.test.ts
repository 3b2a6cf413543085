import type { IncomingMessage } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { startTestServer } from './fixtures/startTestServer.ts';
import type { LocalServerOptions } from './LocalServerOptions.ts';
import { resolveLocalServerOptions } from './LocalServerOptions.ts';

type Attempt =
  | { readonly opened: true; readonly protocol: string }
  | { readonly opened: false; readonly status: number; readonly body: string };

/** Opens a socket over loopback as a browser on `origin` would (none: as Node's `ws` does). */
function connect(url: string, origin?: string): Promise<Attempt> {
  const socket = new WebSocket(url, ['baton.v1'], origin === undefined ? {} : { origin });
  return new Promise((resolve, reject) => {
    socket.once('open', () => {
      resolve({ opened: true, protocol: socket.protocol });
      socket.close();
    });
    socket.once('unexpected-response', (_request, response: IncomingMessage) => {
      let body = '';
      response.on('data', (chunk: Buffer) => {
        body += chunk.toString('utf8');
      });
      response.on('end', () => resolve({ opened: false, status: response.statusCode ?? 0, body }));
    });
    socket.once('error', reject);
  });
}

let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

async function start(options: Partial<LocalServerOptions> = {}) {
  const t = await startTestServer(options);
  stop = t.close;
  return t;
}

describe('which pages may connect to the local server', () => {
  it("lets in a page on the server's own origin, by any loopback name, and a client that names no page", async () => {
    const { server } = await start();
    for (const name of ['localhost', '127.0.0.1', '[::1]']) {
      const attempt = await connect(server.url, `http://${name}:${server.port}`);
      expect(attempt).toEqual({ opened: true, protocol: 'baton.v1' });
    }
    expect(await connect(server.url)).toEqual({ opened: true, protocol: 'baton.v1' });
  });

  it('refuses a page on another site with 403, saying which origin and which option lets it in, before auth runs', async () => {
    let authRuns = 0;
    const { server } = await start({
      auth: () => {
        authRuns++;
        return { user: 'alice' };
      },
    });
    for (const origin of ['https://evil.example', `http://localhost:${server.port + 1}`, 'null']) {
      const attempt = await connect(server.url, origin);
      expect(attempt).toMatchObject({ opened: false, status: 403 });
      const { body } = attempt as { body: string };
      expect(body).toContain(`refused a WebSocket from a page on ${origin}`);
      expect(body).toContain(`http://localhost:${server.port}, http://127.0.0.1:${server.port}`);
      expect(body).toContain(`add "${origin}" to the server's allowedOrigins option`);
    }
    expect(authRuns).toBe(0);
    expect(server.connections()).toEqual([]);
  });

  it('lets in the pages allowedOrigins lists, and only them', async () => {
    const { server } = await start({ allowedOrigins: ['http://localhost:5173/'] });
    expect(await connect(server.url, 'http://localhost:5173')).toMatchObject({ opened: true });
    const own = await connect(server.url, `http://localhost:${server.port}`);
    expect(own).toMatchObject({ opened: false, status: 403 });
    expect((own as { body: string }).body).toContain('only pages on http://localhost:5173 may');
  });

  it('asks an allowedOrigins function about each page', async () => {
    const asked: string[] = [];
    const { server } = await start({
      allowedOrigins: (origin) => {
        asked.push(origin);
        return origin.endsWith('.example.com');
      },
    });
    expect(await connect(server.url, 'https://app.example.com')).toMatchObject({ opened: true });
    const refused = await connect(server.url, 'https://example.org');
    expect(refused).toMatchObject({ opened: false, status: 403 });
    expect((refused as { body: string }).body).toContain('its allowedOrigins function refused it');
    expect(asked).toEqual(['https://app.example.com', 'https://example.org']);
  });

  it('refuses an allowedOrigins entry that is no origin, saying how to write one', async () => {
    const { app } = await start();
    const options = { actors: [], queries: [], backend: app };
    expect(() =>
      resolveLocalServerOptions({ ...options, allowedOrigins: ['localhost:5173', 'http://a/b'] }),
    ).toThrow(
      /allowedOrigins holds "localhost:5173", which is no origin: give scheme:\/\/host\[:port\], e.g. 'http:\/\/localhost:5173'; allowedOrigins holds "http:\/\/a\/b"/,
    );
    expect(() =>
      resolveLocalServerOptions({ ...options, allowedOrigins: 'http://localhost:5173' as never }),
    ).toThrow(/allowedOrigins must be a list of origins/);
  });
});
