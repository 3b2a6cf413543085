import type { IncomingMessage } from 'node:http';
import type { ingressHandler } from '@baton/aws/lambda';

/** The API Gateway (HTTP API, payload 2.0) event that the Lambda ingress takes. */
export type IngressEvent = Parameters<ReturnType<typeof ingressHandler>>[0];

/**
 * A Node request as the API Gateway event the Lambda ingress takes, so that `baton dev` serves
 * `POST /send`, `POST /ask` and `GET /outcome/<id>` with the very handler deployed to Lambda.
 */
export function toApiGatewayEvent(request: IncomingMessage, body: string): IngressEvent {
  const url = new URL(request.url ?? '/', 'http://localhost');
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  const method = request.method ?? 'GET';
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers,
    body,
    isBase64Encoded: false,
    requestContext: { http: { method, path: url.pathname } },
  } as unknown as IngressEvent;
}
