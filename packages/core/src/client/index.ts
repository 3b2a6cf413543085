/**
 * `@baton/core/client`: the ingress `Client` — what a server, a Lambda ingress or a test uses to
 * send to actors, ask them and read outcomes, straight on a backend's store and queue. It sits
 * beside the engine, over the adapter ports; an app's definitions (`@baton/core`) do not need it,
 * and a browser talks to the ingress through `@baton/client` instead.
 */
export { Client } from './Client.ts';
export type {
  AskOptions,
  ClientOptions,
  EndOptions,
  SendOptions,
  SendResult,
} from './clientOptions.ts';
export { claimedFrom, OUTCOME_READ_MAX_PAGES } from './IdempotencyKeys.ts';
