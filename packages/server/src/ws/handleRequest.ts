import { type ActorRef, type Caller, type Client, toBatonError } from '@baton/core';
import {
  answersMessage,
  idempotencyKeyReused,
  ingressMessageId,
  messageFingerprint,
  parseActorId,
} from '@baton/core/adapter';
import {
  type AskMessage,
  PROTOCOL_VERSION,
  type SendMessage,
  type ServerMessage,
} from '@baton/protocol';
import type { QueryEngine } from '../QueryEngine.ts';
import type { CommitTracker, CommitWait } from './CommitTracker.ts';
import type { SubscriptionStream } from './SubscriptionStream.ts';

/**
 * What a request handler needs from its connection.
 *
 * @example
 * const context: RequestContext = { client, caller, engine, tracker, reply: send, streams, hold };
 */
export interface RequestContext {
  readonly client: Client;
  /** Who the connection's `auth` said it is: access is checked and idempotency keys scoped by it. */
  readonly caller: Caller;
  readonly engine: QueryEngine;
  readonly tracker: CommitTracker;
  /** Sends a frame, unless the connection closed. */
  reply(frame: ServerMessage): void;
  /** The connection's live subscriptions. */
  streams(): Iterable<SubscriptionStream>;
  /** Keeps a wait so that closing the connection cancels it; returns a function forgetting it. */
  hold(wait: CommitWait): () => void;
}

/**
 * Handles a `send` or an `ask`: enqueues the message through the core `Client` with the frame's
 * idempotency key (so a re-sent frame is the same message, processed once) and answers
 * `accepted { requestId, messageId }`. An `ask` is then answered by `reply` with the handler's
 * value, or `error` with its error. A `send` with `visible: true` is answered by `visible` once
 * its commit is seen by the query engine and every subscription of this connection that reads
 * the target actor has been sent a result at least as new (read-your-writes); a send the actor
 * rejected gets its `error` instead. A request whose key another message of this caller holds —
 * even one still waiting, whose outcome the wait sees — gets IDEMPOTENCY_KEY_REUSED, never that
 * message's outcome. Never throws: problems become `error { requestId }`.
 *
 * @example
 * void handleRequest(context, { v: 1, type: 'send', requestId: 'r1', to: 'account/alice',
 *   name: 'deposit', payload: { amount: 5 }, idempotencyKey: 'dep-1', visible: true });
 */
export async function handleRequest(
  context: RequestContext,
  message: SendMessage | AskMessage,
): Promise<void> {
  const { requestId, to, name, payload, idempotencyKey } = message;
  const waitsForCommit = message.type === 'ask' || message.visible === true;
  const wait = waitsForCommit
    ? context.tracker.wait(ingressMessageId(to, idempotencyKey, context.caller), to, {
        onFeed: message.type === 'send',
      })
    : undefined;
  const forget = wait ? context.hold(wait) : () => {};
  try {
    const { messageId } = await context.client.send(refOf(to), name as never, payload as never, {
      idempotencyKey,
      caller: context.caller,
      ...(message.traceparent === undefined ? {} : { traceparent: message.traceparent }),
    });
    context.reply({ v: PROTOCOL_VERSION, type: 'accepted', requestId, messageId });
    if (!wait) return;
    const record = await wait.record;
    // Two requests may wait on one key with different messages (the queue keeps the first).
    if (!answersMessage(record, messageFingerprint(name, payload))) {
      throw idempotencyKeyReused({ id: messageId, to, name });
    }
    const { outcome } = record;
    if (!outcome.ok) {
      context.reply({ v: PROTOCOL_VERSION, type: 'error', requestId, error: outcome.error });
    } else if (message.type === 'ask') {
      context.reply({ v: PROTOCOL_VERSION, type: 'reply', requestId, value: outcome.value });
    } else {
      await visibleIn(context, to);
      context.reply({ v: PROTOCOL_VERSION, type: 'visible', requestId, messageId });
    }
  } catch (error) {
    wait?.cancel();
    const serialized = toBatonError(error).toJSON();
    context.reply({ v: PROTOCOL_VERSION, type: 'error', requestId, error: serialized });
  } finally {
    forget();
  }
}

/**
 * Waits until every subscription of the connection whose query read `actorId` has been sent the
 * result the engine computed after the commit (flushing the engine's pending re-runs first).
 */
async function visibleIn(context: RequestContext, actorId: string): Promise<void> {
  await context.engine.flush();
  const waits: Promise<void>[] = [];
  for (const stream of context.streams()) {
    const subscription = stream.subscription;
    const current = subscription?.current();
    if (current?.kind === 'result' && subscription!.dependsOn(actorId)) {
      waits.push(stream.whenSent(current.version));
    }
  }
  await Promise.all(waits);
}

/** The ref the core client wants; the client's registry refuses a malformed id (INVALID_REF). */
function refOf(id: string): ActorRef {
  const parsed = parseActorId(id);
  return { id, type: parsed?.type ?? '', key: parsed?.key ?? '' };
}
