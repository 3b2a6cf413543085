import type { BatonError, Caller } from '@baton/core';
import type { ChunkAssembler, ResumePoint, ServerMessage } from '@baton/protocol';
import type { ResolvedRequest } from '../evaluation/resolveInstanceKey.ts';
import type { FrameCounter } from './connectionLimits.ts';

/**
 * Who a connection is: what the app's `auth` returned when it connected, and the caller that
 * identity makes (access is checked and idempotency keys are scoped by it).
 *
 * @example
 * const who: SessionCaller = { identity, caller: callerOf(identity) };
 */
export interface SessionCaller {
  readonly identity: unknown;
  readonly caller: Caller;
}

/**
 * A subscription the session checked: its query is public to the caller, its args parsed, and
 * its instance key computed.
 *
 * @example
 * const opening: SubscriptionOpening = { id: 's1', query: 'balance', args: {}, resolved };
 */
export interface SubscriptionOpening {
  /** The client's id of the subscription. */
  readonly id: string;
  /** The query's name and args as the client sent them. */
  readonly query: string;
  readonly args: unknown;
  readonly resolved: ResolvedRequest;
  /** The value the client holds already, when it resumes. */
  readonly resume?: ResumePoint | undefined;
}

/**
 * Where a host keeps a connection's subscriptions: live streams over the query engine locally,
 * registry items and shared query instances in DynamoDB on API Gateway. The session has checked
 * access and the connection's cap before it opens one.
 *
 * @example
 * const subscriptions: SubscriptionStore = { countBeside, open, close };
 */
export interface SubscriptionStore {
  /** How many subscriptions the connection holds, not counting `id` (a subscribe replaces it). */
  countBeside(id: string): number | Promise<number>;
  /**
   * Opens (or replaces) subscription `opening.id` and sends its first answer through the
   * session's reply; throws for a problem of this subscription only.
   */
  open(opening: SubscriptionOpening): void | Promise<void>;
  /** Drops subscription `id`; nothing when the connection holds none of that id. */
  close(id: string): void | Promise<void>;
  /** The client holds `version` of subscription `id` (a host that pushes at once ignores it). */
  ack?(id: string, version: number): void;
  /**
   * The client read the first `frames` frames sent on its socket: every push among them is
   * acknowledged (a host that pushes at once ignores it).
   */
  received?(frames: number): void;
}

/**
 * A request that waits for its message's outcome: an `ask`, or a `send` with `visible: true`.
 *
 * @example
 * const request: WaitingRequest = { kind: 'ask', requestId: 'r1', messageId, to: 'account/a', name: 'balance', fingerprint };
 */
export interface WaitingRequest {
  readonly kind: 'ask' | 'visible';
  readonly requestId: string;
  /** The ingress message id its idempotency key maps to. */
  readonly messageId: string;
  readonly to: string;
  readonly name: string;
  /** Of the request's message: another message under the same key answers it with IDEMPOTENCY_KEY_REUSED. */
  readonly fingerprint: string;
}

/**
 * A wait for one request's outcome, prepared before its message is enqueued (so an outcome
 * seen right after finds it).
 *
 * @example
 * const wait = await outcomes.expect(request);
 */
export interface OutcomeWait {
  /** The message could not be enqueued: forget the wait. */
  cancel(): void | Promise<void>;
  /**
   * The message was accepted: answer the request once its outcome is known (see
   * `answerOutcome`). A host serving one connection's frames in order returns at once and
   * answers later; a Lambda answers what is known before it returns. `sentAt`: when the
   * message was first sent, which bounds the outcome pages a read of its outcome goes through.
   */
  accepted(sentAt: number): void | Promise<void>;
}

/**
 * How a host waits for outcomes: a commit tracker on the change feed locally; pending items in
 * the registry, answered by the stream handler, on API Gateway.
 *
 * @example
 * const outcomes: OutcomeWaits = { expect: (request) => tracker.waitFor(request) };
 */
export interface OutcomeWaits {
  expect(request: WaitingRequest): OutcomeWait | Promise<OutcomeWait>;
}

/**
 * What a host supplies for one connection's frames: where replies go, how its frames are
 * counted, how it is closed, where its subscriptions live and how its requests wait for outcomes.
 *
 * @example
 * await session.handle(who, ports, data, isBinary);
 */
export interface SessionPorts {
  /** Sends a frame to this connection (a reply or a push); never throws. */
  reply(frame: ServerMessage): void | Promise<void>;
  readonly frames: FrameCounter;
  /**
   * Closes the connection for the policy it broke, which `error` tells (its message fits a close
   * frame's reason: a client that floods, past twice `maxFramesPerSecond` in a second), and
   * drops what it holds, logging it once with the connection's id. With close code 1008 (policy
   * violation) where the host can send one; API Gateway cannot: there the client is sent an
   * `error` frame, then the connection is deleted. Never throws.
   */
  close(error: BatonError): void | Promise<void>;
  readonly subscriptions: SubscriptionStore;
  readonly outcomes: OutcomeWaits;
  /**
   * The connection's pending chunked messages, for a host that keeps them between frames.
   * Without it a chunked message is refused: a Lambda keeps nothing between frames.
   */
  readonly chunks?: ChunkAssembler;
  /** A ping came: a host whose leases only pings renew renews this connection's. */
  renew?(): void | Promise<void>;
}
