/**
 * Serves the bank's live page: Baton's local WebSocket server over a running app, and an HTTP
 * server for the page's files (pageFiles.ts), which tell the page where the WebSocket server is.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '@baton/core';
import type { EmbeddedRuntime } from '@baton/embedded';
import { loopbackOrigins } from '@baton/server/session';
import { createLocalServer } from '@baton/server/ws';
import { Account } from '../bank.ts';
import { demoAuth } from '../demoAuth.ts';
import { balances } from '../queries.ts';
import { pageHtml, pagePolicy, pageScript } from './pageFiles.ts';

export interface ServePageOptions {
  readonly runtime: EmbeddedRuntime;
  /** The page's HTTP port. @default 0: any free port */
  readonly port?: number;
  readonly logger?: Logger;
}

export interface LivePage {
  /** The page, e.g. `http://127.0.0.1:3000/`. */
  readonly url: string;
  /** Stops both servers (not the app). */
  close(): Promise<void>;
}

const HOST = '127.0.0.1';

/**
 * @example
 * const page = await servePage({ runtime: startEmbedded({ actors: [Account] }), port: 3000 });
 * console.log(`open ${page.url}`);
 */
export async function servePage(options: ServePageOptions): Promise<LivePage> {
  const script = pageScript();
  /** The page's origins, once its server listens: the only pages the WebSocket server lets in. */
  let pageOrigins: string[] = [];
  const live = await createLocalServer({
    actors: [Account],
    queries: [balances],
    backend: options.runtime,
    auth: demoAuth,
    allowedOrigins: (origin) => pageOrigins.includes(origin),
    ...(options.logger ? { logger: options.logger } : {}),
  });
  const index = pageHtml(live.url);
  // The policy the deployed page is sent with (infra/), for the local WebSocket server.
  const policy = pagePolicy(new URL(live.url).origin);
  const http = createServer((request, response) => {
    if (request.url === '/page.js') {
      response.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(script);
    } else if (request.url === '/' || request.url?.startsWith('/?')) {
      response
        .writeHead(200, {
          'content-type': 'text/html; charset=utf-8',
          'content-security-policy': policy,
        })
        .end(index);
    } else {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    }
  });
  try {
    await new Promise<void>((resolve, reject) => {
      http.once('error', reject).listen(options.port ?? 0, HOST, resolve);
    });
  } catch (error) {
    await live.close();
    throw error;
  }
  const { port } = http.address() as AddressInfo;
  pageOrigins = loopbackOrigins(port);
  return {
    url: `http://${HOST}:${port}/`,
    async close() {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
      await live.close();
    },
  };
}
