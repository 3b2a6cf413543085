/**
 * `@baton/server/http`: the HTTP ingress, neutral of any transport — `POST /send`, `POST /ask`,
 * `GET /outcome/<id>`, `GET /outcome?to=…&idempotencyKey=…`, `POST /workflows/<name>/start` and
 * `GET /workflows/<name>/<id>`, their bodies and their errors.
 * The Lambda ingress (`@baton/aws/lambda`) adapts API Gateway events to it; `baton dev` adapts
 * Node's requests.
 */

export { errorResponse, type HttpResponse, json } from './httpErrors.ts';
export {
  bearerCaller,
  type HttpIngressOptions,
  type HttpIngressRequest,
  httpIngress,
} from './httpIngress.ts';
