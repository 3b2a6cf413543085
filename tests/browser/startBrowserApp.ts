/**
 * Everything the browser test runs in Node: the embedded app, Baton's local WebSocket server,
 * and one HTTP server on 127.0.0.1 that serves the bundled page and passes WebSocket upgrades
 * on to the Baton server — so the test can cut the page's sockets as a network drop would.
 */
import { createServer, type IncomingMessage } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { defineApp, silentLogger } from '@baton/core';
import { type EmbeddedRuntime, startEmbedded } from '@baton/embedded';
import { createLocalServer, type LocalServer } from '@baton/server/ws';
import { build } from 'esbuild';
import { Account, balance, Laundry, privateBalance, type User } from './page/model.ts';

export interface BrowserApp {
  readonly runtime: EmbeddedRuntime;
  readonly server: LocalServer;
  /** The page, for a browser: `http://127.0.0.1:<port>/?token=…` */
  pageUrl(token: string): string;
  /** Cuts every WebSocket the page opened, without a close handshake. */
  dropSockets(): number;
  close(): Promise<void>;
}

const INDEX = `<!doctype html>
<html lang="en">
  <head><meta charset="utf-8"><title>Baton live view</title></head>
  <body><div id="root"></div><script type="module" src="/app.js"></script></body>
</html>`;

/** Bundles the page (React, `@baton/react`, `@baton/client`) into memory. */
async function bundlePage(): Promise<string> {
  const result = await build({
    entryPoints: [join(import.meta.dirname, 'page', 'app.tsx')],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    jsx: 'automatic',
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

export async function startBrowserApp(): Promise<BrowserApp> {
  const script = await bundlePage();
  const app = defineApp({
    actors: [Account],
    workflows: [Laundry],
    queries: [balance, privateBalance],
  });
  const runtime = startEmbedded({ actors: app.actors, logger: silentLogger });
  /** The page's origin, once its server listens: the page is the one that connects. */
  let pageOrigin = '';
  const server = await createLocalServer({
    actors: app.actors,
    queries: app.queries,
    backend: runtime,
    logger: silentLogger,
    allowedOrigins: (origin) => origin === pageOrigin,
    auth: ({ token }): User | undefined => (token ? { user: token } : undefined),
  });

  const piped = new Set<Socket | Duplex>();
  const http = createServer((request, response) => {
    if (request.url?.startsWith('/app.js')) {
      response.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' });
      response.end(script);
    } else if (request.url === '/favicon.ico') {
      response.writeHead(404).end();
    } else {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(INDEX);
    }
  });
  http.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const upstream = connect(server.port, '127.0.0.1', () => {
      const lines = [`${request.method} ${request.url} HTTP/1.1`];
      for (let i = 0; i < request.rawHeaders.length; i += 2) {
        lines.push(`${request.rawHeaders[i]}: ${request.rawHeaders[i + 1]}`);
      }
      upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
      upstream.write(head);
      socket.pipe(upstream).pipe(socket);
    });
    const drop = () => {
      socket.destroy();
      upstream.destroy();
      piped.delete(socket);
      piped.delete(upstream);
    };
    piped.add(socket).add(upstream);
    socket.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  pageOrigin = `http://127.0.0.1:${port}`;

  return {
    runtime,
    server,
    pageUrl: (token) =>
      `http://127.0.0.1:${port}/?ws=${encodeURIComponent(`ws://127.0.0.1:${port}/baton`)}&token=${token}`,
    dropSockets() {
      const count = piped.size / 2;
      for (const socket of [...piped]) socket.destroy();
      piped.clear();
      return count;
    },
    async close() {
      for (const socket of [...piped]) socket.destroy();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
      await server.close();
      await runtime.stop();
    },
  };
}
