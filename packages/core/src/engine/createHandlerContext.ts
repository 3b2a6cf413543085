import type { ActorContext } from '../ActorContext.ts';
import { jsonSize } from '../adapter/conflicts.ts';
import { type Envelope, parseActorId } from '../adapter/envelope.ts';
import { uuidFrom } from '../adapter/random.ts';
import type { HandlingTrace } from '../adapter/traceContext.ts';
import { BatonError, ErrorCode } from '../errors.ts';
import { childLogger } from '../logger.ts';
import type { Engine } from './createEngine.ts';

/** What one handler run produced, collected by its context. */
export interface HandlerEffects {
  readonly ctx: ActorContext<unknown>;
  /** Sends in call order, before sequence numbers are given. */
  readonly sends: Array<{ to: string; name: string; payload: unknown }>;
  reply: { set: boolean; value: unknown };
}

/**
 * Builds the context for one message: a draft of the state, and sends held until commit.
 * Sends are validated here, so a bad send fails the handler that made it, not its target.
 */
export function createHandlerContext(
  engine: Engine,
  actorId: string,
  draft: unknown,
  envelope: Envelope,
  { inboxPosition, trace }: { inboxPosition?: string; trace?: HandlingTrace } = {},
): HandlerEffects {
  const self = parseActorId(actorId)!;
  const now = engine.clock.now();
  const effects: HandlerEffects = {
    sends: [],
    reply: { set: false, value: undefined },
    ctx: {
      state: draft,
      self: { type: self.type, key: self.key, id: actorId },
      message: {
        id: envelope.id,
        from: envelope.from,
        name: envelope.name,
        sentAt: envelope.sentAt,
      },
      send(to, name, payload) {
        const resolved = engine.registry.resolve(to.id, name, payload);
        const size = jsonSize(resolved.payload);
        const limit = engine.store.limits.maxItemBytes / 2;
        if (size > limit) {
          throw new BatonError(
            ErrorCode.MESSAGE_TOO_LARGE,
            `payload of "${name}" to ${to.id} is ${size} bytes; the limit is ${limit}: store large data elsewhere and send a reference`,
            { details: { to: to.id, name, size, limit } },
          );
        }
        // A copy: the message is what was sent, whatever the handler changes afterwards.
        effects.sends.push({ to: to.id, name, payload: structuredClone(payload) });
      },
      reply(value) {
        effects.reply = { set: true, value };
      },
      now: () => now,
      random: () => engine.random(),
      uuid: () => uuidFrom(engine.random),
      log: childLogger(engine.logger, {
        actor: actorId,
        messageId: envelope.id,
        ...(inboxPosition === undefined ? {} : { inboxPosition }),
        ...(trace
          ? { traceId: trace.traceId, spanId: trace.spanId, parentSpanId: trace.parentId }
          : {}),
      }),
    },
  };
  return effects;
}
