import { BatonError, type Caller, ErrorCode } from '@baton/core';
import type { QueryUpdate } from './QueryUpdate.ts';

/**
 * What a host subscribes to on behalf of a client.
 *
 * @example
 * const request: SubscribeRequest = {
 *   query: 'myBalance',
 *   args: {},
 *   identity: { userId: 'alice' },
 *   leaseMs: 90_000,
 * };
 */
export interface SubscribeRequest {
  /** The query's name. */
  readonly query: string;
  /** Validated against the query's args schema. */
  readonly args: unknown;
  /** What the host's auth hook produced; the query sees it as `ctx.identity`. */
  readonly identity?: unknown;
  /**
   * Who subscribes, when a host subscribes for a client: the query must then be public and its
   * `authorize` must let this caller through (FORBIDDEN otherwise). Hosts always pass it.
   * @default none: trusted in-process code, which may run any query
   */
  readonly caller?: Caller;
  /** The identity scope of this subscription. @default the engine's `scope` */
  readonly scope?: (identity: unknown) => string;
  /** Makes the subscription a lease: `collect()` drops it unless renewed within this time. */
  readonly leaseMs?: number;
}

/**
 * A subscriber's handle.
 *
 * @example
 * const sub = engine.subscribe(request, send);
 * heartbeat.on('ping', () => sub.renew() || resubscribe());
 */
export interface QuerySubscription {
  /** The key of the shared instance: equal for subscriptions that share one. */
  readonly instance: string;
  /** The instance's newest update, `undefined` before its first run ends or after unsubscribe. */
  current(): QueryUpdate | undefined;
  /** Extends the lease by `leaseMs` from now; false if the subscription is gone (resubscribe). */
  renew(): boolean;
  /** Whether the instance's last completed run read this actor (read-your-writes in hosts). */
  dependsOn(actorId: string): boolean;
  /** Stops the updates; the last subscriber of an instance drops it. Idempotent. */
  unsubscribe(): void;
}

/**
 * What a reconnecting client last held.
 *
 * @example
 * const request: ResumeRequest = { query: 'totalBalance', args, lastVersion: 4, hash: 'kq…' };
 */
export interface ResumeRequest extends Omit<SubscribeRequest, 'leaseMs'> {
  readonly lastVersion: number;
  readonly hash: string;
}

/**
 * Counters of a {@link QueryEngine}.
 *
 * @example
 * const { instances, runs, pushes } = engine.stats();
 */
export interface QueryEngineStats {
  /** Live instances. */
  readonly instances: number;
  readonly subscriptions: number;
  /** Actors that at least one instance depends on. */
  readonly dependencies: number;
  /** Query runs started. */
  readonly runs: number;
  /** Updates handed to listeners. */
  readonly pushes: number;
  /** Runs whose result was stale when they ended, so not pushed. */
  readonly skipped: number;
}

function invalid(message: string): BatonError {
  return new BatonError(ErrorCode.INVALID_ARGUMENT, message);
}

/**
 * Checks the shape of a subscribe call (not the args: the query's schema does that).
 *
 * @example
 * checkSubscribe({ query: 'totalBalance', args: {} }, () => {}); // passes
 */
export function checkSubscribe(request: SubscribeRequest, listener: unknown): void {
  if (typeof request !== 'object' || request === null) {
    throw invalid('subscribe takes { query, args, identity?, scope?, leaseMs? }');
  }
  if (typeof request.query !== 'string') throw invalid('query must be the name of a query');
  if (typeof listener !== 'function') throw invalid('subscribe needs a listener function');
  if (request.scope !== undefined && typeof request.scope !== 'function') {
    throw invalid('scope must be a function from identity to a string');
  }
  const { leaseMs } = request;
  if (leaseMs !== undefined && !(Number.isFinite(leaseMs) && leaseMs > 0)) {
    throw invalid(`leaseMs must be a number > 0, got ${leaseMs}`);
  }
}

/**
 * Checks a resume call: a subscribe call plus the client's `lastVersion` and `hash`.
 *
 * @example
 * checkResume({ query: 'totalBalance', args: {}, lastVersion: 3, hash: 'Zm9v' }); // passes
 */
export function checkResume(request: ResumeRequest): void {
  checkSubscribe(request, () => {});
  if (!Number.isSafeInteger(request.lastVersion) || request.lastVersion < 0) {
    throw invalid(`lastVersion must be an integer ≥ 0, got ${request.lastVersion}`);
  }
  if (typeof request.hash !== 'string') throw invalid('hash must be the hash of the last result');
}
