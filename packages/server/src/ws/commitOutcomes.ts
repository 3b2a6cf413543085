import { BatonError, ErrorCode } from '@baton/core';
import { PROTOCOL_VERSION, type ServerMessage } from '@baton/protocol';
import type { QueryEngine } from '../QueryEngine.ts';
import { answerOutcome, visibleFrame } from '../session/answerOutcome.ts';
import type { OutcomeWaits, WaitingRequest } from '../session/SessionPorts.ts';
import type { CommitTracker, CommitWait } from './CommitTracker.ts';
import type { SubscriptionStream } from './SubscriptionStream.ts';

/**
 * What the local host's outcome waits need from their connection.
 *
 * @example
 * const context: CommitOutcomesContext = { engine, tracker, reply: send, told, streams, hold };
 */
export interface CommitOutcomesContext {
  readonly engine: QueryEngine;
  readonly tracker: CommitTracker;
  /** Sends a frame, unless the connection closed. */
  reply(frame: ServerMessage): void;
  /** A failure as the client is told it: a surprise's text withheld (and logged). */
  told(error: unknown): BatonError;
  /** The connection's live subscriptions. */
  streams(): Iterable<SubscriptionStream>;
  /** Keeps a wait so that closing the connection cancels it; returns a function forgetting it. */
  hold(wait: CommitWait): () => void;
  /** How many requests of the connection wait for their answers (the waits it holds). */
  waiting(): number;
  /** How many may: one more is refused before it is enqueued. */
  readonly maxWaiting: number;
}

/**
 * The local host's outcome waits: each request waits on the commit tracker for its message's
 * outcome record and is answered by `answerOutcome` — an `ask` with `reply` or `error`; a send
 * with `visible: true` with `visible` once its commit is seen by the query engine and every
 * subscription of this connection that reads the target actor has been sent a result at least
 * as new (read-your-writes). A request whose key another message of this caller holds — even
 * one still waiting — gets IDEMPOTENCY_KEY_REUSED, never that message's outcome. The answer
 * comes in the background: the connection's next frames are not held up by it. A connection
 * holds at most `maxWaiting` such requests: a client that never acknowledges its pushes cannot
 * pile up visible sends waiting for them; one more is LIMIT_EXCEEDED, and is not enqueued.
 *
 * @example
 * const outcomes = commitOutcomes(context);
 * const wait = outcomes.expect({ kind: 'ask', requestId: 'r1', messageId, to, name, fingerprint });
 */
export function commitOutcomes(context: CommitOutcomesContext): OutcomeWaits {
  return {
    expect(request) {
      if (context.waiting() >= context.maxWaiting) throw tooManyWaiting(context.maxWaiting);
      const wait = context.tracker.wait(request.messageId, request.to, {
        onFeed: request.kind === 'visible',
        fingerprint: request.fingerprint,
      });
      const forget = context.hold(wait);
      return {
        cancel: () => {
          wait.cancel();
          forget();
        },
        accepted: (sentAt) => {
          wait.sentAt(sentAt);
          void answer(context, request, wait).finally(forget);
        },
      };
    },
  };
}

async function answer(
  context: CommitOutcomesContext,
  request: WaitingRequest,
  wait: CommitWait,
): Promise<void> {
  try {
    const answer = answerOutcome(await wait.record, request);
    if (answer !== 'visible') return context.reply(answer);
    await visibleIn(context, request.to);
    context.reply(visibleFrame(request.requestId, request.messageId));
  } catch (error) {
    wait.cancel();
    context.reply({
      v: PROTOCOL_VERSION,
      type: 'error',
      requestId: request.requestId,
      error: context.told(error).toJSON(),
    });
  }
}

/**
 * Waits until every subscription of the connection whose query read `actorId` has been sent the
 * result the engine computed after the commit (flushing the engine's pending re-runs first).
 */
async function visibleIn(context: CommitOutcomesContext, actorId: string): Promise<void> {
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

/** The LIMIT_EXCEEDED error of an ask or visible send past `max` waiting on its connection. */
function tooManyWaiting(max: number): BatonError {
  return new BatonError(
    ErrorCode.LIMIT_EXCEEDED,
    `this connection has ${max} asks and visible sends waiting for their answers, the most it may, so this one was not sent: wait for answers before sending more (a visible send is answered once the client acknowledges the results it was pushed), then send it again`,
    { details: { limit: max } },
  );
}
