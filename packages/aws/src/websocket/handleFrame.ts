import { BatonError, callerOf, ErrorCode, isBatonError } from '@baton/core';
import { OUTCOME_READ_MAX_PAGES } from '@baton/core/client';
import { PROTOCOL_VERSION, resumeFloor } from '@baton/protocol';
import { hashText } from '@baton/server/evaluation';
import {
  type OutcomeWaits,
  type ProtocolSession,
  type SessionPorts,
  type SubscriptionOpening,
  tooManySubscriptions,
} from '@baton/server/session';
import { answerFound } from './answerPending.ts';
import type { Pusher } from './Pusher.ts';
import { fanOut, refreshInstance, updateFrame } from './refreshInstance.ts';
import type { ConnectionItem } from './registry/Connections.ts';
import type { ReactiveContext } from './WebSocketOptions.ts';

/**
 * What the `$default` route needs beside the shared context.
 *
 * @example
 * const context: FrameContext = { ...resolveReactiveOptions(options), session };
 */
export interface FrameContext extends ReactiveContext {
  /** The protocol: frames, access, caps and replies, shared with the local host. */
  readonly session: ProtocolSession;
}

/**
 * Handles one frame a client sent through API Gateway (`$default`) with the protocol session,
 * on this host's ports: replies and pushes through the management API, the connection's frame
 * count, subscriptions and pending requests in the registry. Never throws for client input:
 * every problem is answered with an `error` frame to this connection only. A chunked client
 * message is refused: API Gateway takes messages up to 128 KB, and a Lambda keeps no chunks
 * between frames.
 *
 * @example
 * await handleFrame(context, pusher, connection, event.body ?? '', event.isBase64Encoded);
 */
export async function handleFrame(
  context: FrameContext,
  pusher: Pusher,
  connection: ConnectionItem,
  body: string,
  isBinary: boolean,
): Promise<void> {
  const { connectionId, identity } = connection;
  const { registry } = context;
  const ports: SessionPorts = {
    reply: async (frame) => {
      await pusher.send(connectionId, frame);
    },
    // Counted in the connection's registry item: Lambdas share no memory.
    frames: { count: (second) => registry.connections.countFrame(connectionId, second) },
    // API Gateway sends no close code: the client is told why in an `error` frame, then the
    // connection is deleted and its registry state removed.
    close: async (error) => {
      const { code, message, details } = error;
      context.logger.warn('closing a connection for a policy violation', {
        connectionId,
        code,
        reason: message,
        ...details,
      });
      await pusher.closeWith(connectionId, error);
    },
    subscriptions: {
      countBeside: async (id) =>
        (await registry.subscriptions.of(connectionId)).filter((s) => s.subscriptionId !== id)
          .length,
      open: (opening) => subscribe(context, pusher, connection, opening),
      close: (id) => registry.removeSubscription(connectionId, id),
      // No ack: every push goes out at once (see the README).
    },
    outcomes: pendingOutcomes(context, pusher, connectionId),
    renew: async () => {
      await registry.connections.renew(connectionId, context.clock.now() + context.leaseMs);
    },
  };
  const data = Buffer.from(body, isBinary ? 'base64' : 'utf8');
  await context.session.handle({ identity, caller: callerOf(identity) }, ports, data, isBinary);
}

/**
 * Registers the subscription and its shared instance, runs the instance's query against
 * committed state (recording its reads) and pushes its result — or `unchanged` to a client
 * resuming with the value it holds.
 */
async function subscribe(
  context: FrameContext,
  pusher: Pusher,
  { connectionId, identity }: ConnectionItem,
  { id, query, resolved, resume }: SubscriptionOpening,
): Promise<void> {
  const { registry } = context;
  const instanceId = hashText(resolved.key);
  const previous = await registry.subscriptions.get(connectionId, id);
  if (previous && previous.instanceId !== instanceId) {
    await registry.removeSubscription(connectionId, id);
  }
  // The subscriber first, then the instance: a concurrent drop of the instance then either sees
  // the subscriber or fails on the instance's new rev.
  await registry.subscriptions.add({ connectionId, subscriptionId: id, instanceId });
  // API Gateway hands a connection's frames to invocations side by side, each past the session's
  // count before any added its subscription: counted again after, the one too many withdraws.
  const { maxSubscriptions } = context.limits;
  if ((await registry.subscriptions.of(connectionId)).length > maxSubscriptions) {
    await registry.removeSubscription(connectionId, id);
    throw tooManySubscriptions(maxSubscriptions);
  }
  const instance = await registry.instances.upsert(instanceId, {
    key: resolved.key,
    query,
    args: JSON.stringify(resolved.args),
    identity,
  });
  const refreshed = await refreshInstance(context, instance, (hash) => resumeFloor(resume, hash));
  if (!refreshed) {
    throw new BatonError(ErrorCode.UNAVAILABLE, 'the query instance was dropped; subscribe again');
  }
  if (refreshed.changed) {
    await fanOut(context, pusher, refreshed, { connectionId, subscriptionId: id });
  }
  const { update } = refreshed;
  if (resume && update.kind === 'result' && update.hash === resume.hash) {
    const { version, hash } = update;
    await pusher.send(connectionId, { v: PROTOCOL_VERSION, type: 'unchanged', id, version, hash });
  } else {
    await pusher.send(connectionId, updateFrame(id, update));
  }
}

/**
 * Requests one connection may have waiting under one idempotency key. A client re-sends a key
 * only to retry, and one waiting request gets the outcome as well as many: without a cap a
 * connection could pile up requests behind a backlog for one outcome to answer all at once.
 */
export const MAX_WAITING_PER_KEY = 8;

/**
 * This host's outcome waits: a request is recorded as pending (with its message's fingerprint:
 * another request may wait under the same key for another message) before its message is
 * enqueued, so that the stream handler, seeing the outcome, finds and answers it — or it is
 * answered here, when the outcome exists already (a re-sent key). A connection may have at most
 * {@link MAX_WAITING_PER_KEY} requests waiting under one key.
 */
function pendingOutcomes(
  context: FrameContext,
  pusher: Pusher,
  connectionId: string,
): OutcomeWaits {
  return {
    async expect({ kind, requestId, messageId, to, name, fingerprint }) {
      const { registry } = context;
      await registry.pending.put(messageId, {
        connectionId,
        requestId,
        kind,
        actorId: to,
        name,
        fingerprint,
      });
      await keepWithinCap(context, pusher, connectionId, messageId, requestId);
      return {
        cancel: () => registry.pending.delete(messageId, connectionId, requestId),
        accepted: async (sentAt) => {
          // Through a client's bound: an outcome past it comes through the stream, once the
          // actor has taken the retry for a copy and kept the outcome apart.
          const outcome = await context.store
            .readIdempotency(messageId, sentAt, { maxPages: OUTCOME_READ_MAX_PAGES })
            .catch((error: unknown) => {
              if (isBatonError(error) && error.code === ErrorCode.LIMIT_EXCEEDED) return undefined;
              throw error;
            });
          if (outcome) await answerFound(context, pusher, outcome);
        },
      };
    },
  };
}

/**
 * Keeps at most {@link MAX_WAITING_PER_KEY} of the connection's requests waiting under a key,
 * the newest: an older one is withdrawn and told so. A client that timed out re-sends under the
 * key with a new request id (as ASK_TIMEOUT tells it to), and the request it gave up on still
 * waits: refusing the new one would leave the client no way to the outcome on this connection.
 * Counted after the write: API Gateway hands a connection's frames to invocations side by side,
 * as for `maxSubscriptions`.
 */
async function keepWithinCap(
  context: FrameContext,
  pusher: Pusher,
  connectionId: string,
  messageId: string,
  requestId: string,
): Promise<void> {
  const { pending } = context.registry;
  const older = await pending.beyond(messageId, connectionId, MAX_WAITING_PER_KEY);
  await Promise.all(
    older
      .filter((request) => request.requestId !== requestId)
      .map(async (request) => {
        await pending.delete(messageId, connectionId, request.requestId);
        const error = replacedUnderKey(MAX_WAITING_PER_KEY, messageId).toJSON();
        await pusher.send(connectionId, {
          v: PROTOCOL_VERSION,
          type: 'error',
          requestId: request.requestId,
          error,
        });
      }),
  );
}

/** The LIMIT_EXCEEDED error of a request a newer one under its key took the place of. */
function replacedUnderKey(max: number, messageId: string): BatonError {
  return new BatonError(
    ErrorCode.LIMIT_EXCEEDED,
    `more than ${max} asks and visible sends of this connection waited for the outcome of this idempotency key, so this one, the oldest, no longer waits: the newest request under the key gets the outcome (send under the key again to wait for it)`,
    { details: { limit: max, messageId } },
  );
}
