import {
  BatonError,
  type Client,
  callerOf,
  ErrorCode,
  type SerializedError,
  toBatonError,
} from '@baton/core';
import { ingressMessageId, messageFingerprint, parseActorId } from '@baton/core/adapter';
import {
  type AskMessage,
  ChunkAssembler,
  type ClientMessage,
  type ErrorTarget,
  MAX_FRAME_BYTES,
  PROTOCOL_VERSION,
  ProtocolErrorReason,
  readClientFrame,
  type SendMessage,
  type SubscribeMessage,
} from '@baton/protocol';
import {
  hashText,
  rateLimited,
  resolveInstanceKey,
  tooManySubscriptions,
} from '@baton/server/transport';
import { answerPending } from './answerPending.ts';
import type { Pusher } from './Pusher.ts';
import { fanOut, refreshInstance, updateFrame } from './refreshInstance.ts';
import type { ConnectionItem } from './registry/Connections.ts';
import type { ReactiveContext } from './WebSocketOptions.ts';

/**
 * What the `$default` route needs beside the shared context.
 *
 * @example
 * const context: FrameContext = { ...resolveReactiveOptions(options), client };
 */
export interface FrameContext extends ReactiveContext {
  readonly client: Client;
}

/**
 * Handles one frame a client sent through API Gateway (`$default`). Never throws for client
 * input: a malformed frame, an unknown query, bad args or an oversized frame is answered with
 * an `error` frame to this connection only (naming the subscription or request when the frame
 * does). A chunked client message is refused: API Gateway takes messages up to 128 KB, and a
 * Lambda keeps no chunks between frames.
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
  const { connectionId } = connection;
  const data = Buffer.from(body, isBinary ? 'base64' : 'utf8');
  const reading = readClientFrame(data, isBinary, new ChunkAssembler(), MAX_FRAME_BYTES);
  if (reading.kind === 'pending') {
    const error = new BatonError(
      ErrorCode.MESSAGE_TOO_LARGE,
      'chunked client messages are not supported over API Gateway, which takes messages up to 128 KB: send a smaller message, or large data by reference',
      {
        details: { reason: ProtocolErrorReason.CHUNKED_MESSAGE_TOO_LARGE, limit: MAX_FRAME_BYTES },
      },
    );
    await sendError(pusher, connectionId, error.toJSON(), {});
    return;
  }
  if (reading.kind === 'error') {
    await sendError(pusher, connectionId, reading.error.toJSON(), reading.target);
    return;
  }
  const message: ClientMessage = reading.message;
  const target =
    message.type === 'subscribe'
      ? { id: message.id }
      : message.type === 'send' || message.type === 'ask'
        ? { requestId: message.requestId }
        : {};
  // The frame counts against the connection's rate in its registry item (Lambdas share no memory).
  const now = context.clock.now();
  const { maxFramesPerSecond } = context.limits;
  if (
    !(await context.registry.countFrame(connectionId, Math.floor(now / 1000), maxFramesPerSecond))
  ) {
    const retryAfterMs = 1000 - (now % 1000);
    await sendError(
      pusher,
      connectionId,
      rateLimited(maxFramesPerSecond, retryAfterMs).toJSON(),
      target,
    );
    return;
  }
  try {
    switch (message.type) {
      case 'subscribe':
        await subscribe(context, pusher, connection, message);
        break;
      case 'unsubscribe':
        await context.registry.removeSubscription(connectionId, message.id);
        break;
      case 'ack':
        // Accepted and ignored: every push goes out at once (see the README).
        break;
      case 'ping':
        await context.registry.renewConnection(connectionId, context.clock.now() + context.leaseMs);
        await pusher.send(connectionId, { v: PROTOCOL_VERSION, type: 'pong', t: message.t });
        break;
      case 'send':
      case 'ask':
        await request(context, pusher, connection, message);
        break;
    }
  } catch (error) {
    await sendError(pusher, connectionId, toBatonError(error).toJSON(), target);
  }
}

async function subscribe(
  context: FrameContext,
  pusher: Pusher,
  connection: ConnectionItem,
  message: SubscribeMessage,
): Promise<void> {
  const { connectionId, identity } = connection;
  const { id, query, args, resume } = message;
  // Throws NOT_FOUND / INVALID_PAYLOAD: an error for this subscription only.
  const caller = callerOf(identity);
  // With the caller: the access rule every door shares refuses an internal or unknown query.
  const resolved = resolveInstanceKey(context.queries, context.scope, {
    query,
    args,
    identity,
    caller,
  });
  const instanceId = hashText(resolved.key);
  const previous = await context.registry.getSubscription(connectionId, id);
  const { maxSubscriptions } = context.limits;
  if (
    !previous &&
    (await context.registry.subscriptionsOf(connectionId)).length >= maxSubscriptions
  ) {
    throw tooManySubscriptions(maxSubscriptions);
  }
  if (previous && previous.instanceId !== instanceId) {
    await context.registry.removeSubscription(connectionId, id);
  }
  // The subscriber first, then the instance: a concurrent drop of the instance then either sees
  // the subscriber or fails on the instance's new rev.
  await context.registry.addSubscription({ connectionId, subscriptionId: id, instanceId });
  const instance = await context.registry.upsertInstance(instanceId, {
    key: resolved.key,
    query,
    args: JSON.stringify(resolved.args),
    identity,
  });
  const floor = (hash: string | undefined) =>
    resume === undefined ? 0 : hash === resume.hash ? resume.version : resume.version + 1;
  const refreshed = await refreshInstance(context, instance, floor);
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
 * Enqueues a `send` or `ask` through the core client with the frame's idempotency key and
 * answers `accepted`. An `ask`, or a `send` with `visible`, is recorded as pending first (so an
 * outcome seen by the stream handler right after finds it) and answered by the stream handler
 * — or here, when the outcome exists already (a re-sent key). A request whose key is pending
 * for another message (not yet processed: the queue drops this copy) is refused by the answer,
 * not here; one whose key already holds another message's outcome is refused by `send`.
 */
async function request(
  context: FrameContext,
  pusher: Pusher,
  connection: ConnectionItem,
  message: SendMessage | AskMessage,
): Promise<void> {
  const { connectionId, identity } = connection;
  const { requestId, to, name, payload, idempotencyKey } = message;
  // The key is scoped by target and caller: one user can neither shadow nor read another's.
  const caller = callerOf(identity);
  const messageId = ingressMessageId(to, idempotencyKey, caller);
  const kind = message.type === 'ask' ? 'ask' : message.visible === true ? 'visible' : undefined;
  if (kind) {
    // With the fingerprint: another request may wait under the same key for another message.
    await context.registry.putPending(messageId, {
      connectionId,
      requestId,
      kind,
      actorId: to,
      name,
      fingerprint: messageFingerprint(name, payload),
    });
  }
  try {
    const parsed = parseActorId(to);
    const ref = { id: to, type: parsed?.type ?? '', key: parsed?.key ?? '' };
    await context.client.send(ref, name as never, payload as never, {
      idempotencyKey,
      caller,
      ...(message.traceparent === undefined ? {} : { traceparent: message.traceparent }),
    });
  } catch (error) {
    if (kind) await context.registry.deletePending(messageId, connectionId, requestId);
    throw error;
  }
  await pusher.send(connectionId, { v: PROTOCOL_VERSION, type: 'accepted', requestId, messageId });
  if (!kind) return;
  const outcome = await context.store.readIdempotency(messageId);
  if (outcome) await answerPending(context, pusher, outcome);
}

async function sendError(
  pusher: Pusher,
  connectionId: string,
  error: SerializedError,
  target: ErrorTarget,
): Promise<void> {
  await pusher.send(connectionId, { v: PROTOCOL_VERSION, type: 'error', ...target, error });
}
