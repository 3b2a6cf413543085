import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect } from 'node:net';
import type { Duplex } from 'node:stream';
import { FORWARD_HEADER } from './protocol.ts';

const LOOPBACK = '127.0.0.1';
/** How long a client still sending a body that is answered already is read, before it is cut off. */
const LINGER_MS = 2_000;

/** Passes an HTTP request on to `port` (with `secret` in {@link FORWARD_HEADER}) and its answer back. */
export function forwardRequest(
  request: IncomingMessage,
  response: ServerResponse,
  port: number,
  secret: string,
): void {
  const headers = { ...request.headers, [FORWARD_HEADER]: secret };
  const upstream = httpRequest(
    { host: LOOPBACK, port, method: request.method, path: request.url, headers },
    (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
      // Answered before the body's end (the app process stopped reading one too long): what the
      // client still sends is read and dropped for a while, then its connection is closed.
      // Closed at once, with data coming, the connection would be reset, and the client could
      // lose the answer before it read it.
      answer.once('end', () => {
        if (request.complete) return;
        request.unpipe(upstream);
        upstream.destroy();
        request.resume();
        setTimeout(() => {
          if (!request.complete) request.socket.destroy();
        }, LINGER_MS).unref();
      });
    },
  );
  upstream.on('error', () => {
    if (response.writableEnded) return;
    if (response.headersSent) response.destroy();
    else
      response.writeHead(503, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          error: { code: 'UNAVAILABLE', message: 'the app process went away: try again' },
        }),
      );
  });
  request.pipe(upstream);
}

/**
 * Passes a WebSocket upgrade on to `port` (with `secret` in {@link FORWARD_HEADER}), then its
 * bytes both ways until either side closes.
 */
export function forwardUpgrade(
  request: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  port: number,
  secret: string,
): void {
  const upstream = connect(port, LOOPBACK, () => {
    const lines = [`${request.method} ${request.url} HTTP/${request.httpVersion}`];
    for (let i = 0; i < request.rawHeaders.length; i += 2) {
      const name = request.rawHeaders[i]!;
      if (name.toLowerCase() !== FORWARD_HEADER)
        lines.push(`${name}: ${request.rawHeaders[i + 1]}`);
    }
    lines.push(`${FORWARD_HEADER}: ${secret}`);
    upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
    if (head.length > 0) upstream.write(head);
    upstream.pipe(socket);
    socket.pipe(upstream);
  });
  upstream.on('error', () => socket.destroy());
  socket.on('error', () => upstream.destroy());
  upstream.on('close', () => socket.destroy());
  socket.on('close', () => upstream.destroy());
}
