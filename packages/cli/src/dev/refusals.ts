/**
 * How `baton dev` answers what its doors refuse, and says why in its output: a browser shows a
 * refused WebSocket only as close code 1006, and keeps a refused cross-origin answer from the
 * page.
 */
import type { ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { ErrorCode } from '@baton/core';

/** How many distinct refusals a run prints (each once) before it prints no more. */
const MAX_REFUSALS_PRINTED = 50;

/**
 * The error code of a request the door refuses (400: not JSON; 403: not allowed; 404: the other
 * port's), as the ingress answers it.
 */
const refusedCode = (status: number) =>
  status === 400
    ? ErrorCode.INVALID_ARGUMENT
    : status === 404
      ? ErrorCode.NOT_FOUND
      : ErrorCode.FORBIDDEN;

/**
 * Prints a refusal's reason with `log`, once each. Bounded, as a rebinding page may name any
 * number of hosts.
 */
export function refusalNotes(log: (line: string) => void): (what: string, message: string) => void {
  const refusals = new Set<string>();
  return (what, message) => {
    if (refusals.has(message) || refusals.size >= MAX_REFUSALS_PRINTED) return;
    refusals.add(message);
    log(`baton dev: refused ${what}: ${message}`);
  };
}

/** Answers a refused request as the ingress does: its error's code and message, as JSON. */
export function refuseRequest(
  response: ServerResponse,
  status: number,
  message: string,
): ServerResponse {
  return response
    .writeHead(status, { 'content-type': 'application/json' })
    .end(JSON.stringify({ error: { code: refusedCode(status), message } }));
}

/** Answers a refused WebSocket upgrade in plain HTTP, and closes the socket. */
export function refuseUpgrade(socket: Duplex, status: number, message: string): void {
  const body = `${message}\n`;
  socket.end(
    `HTTP/1.1 ${status} Forbidden\r\ncontent-type: text/plain; charset=utf-8\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}
