import type { ActorContext } from '../ActorContext.ts';
import { jsonSize } from '../adapter/conflicts.ts';
import {
  askTimerId,
  type Envelope,
  effectTarget,
  INGRESS,
  isActorSender,
  parseActorId,
} from '../adapter/envelope.ts';
import { messageFingerprint } from '../adapter/fingerprint.ts';
import type { OverflowMark, Timer } from '../adapter/ports.ts';
import type { HandlingTrace } from '../adapter/traceContext.ts';
import { ANONYMOUS, type Caller } from '../caller.ts';
import {
  INNER_SPAN,
  type InnerSpanOptions,
  STATE_PAGES,
  type StatePages,
  TURN_TRACE,
  WARM_CACHE,
} from '../contextSlots.ts';
import { BatonError, ErrorCode } from '../errors.ts';
import { childLogger } from '../logger.ts';
import { asJson } from '../shared/asJson.ts';
import { deepCopy } from '../shared/deepCopy.ts';
import { uuidFrom } from '../shared/random.ts';
import type { Engine } from './createEngine.ts';
import type { Send } from './outgoing.ts';
import { startInnerSpan } from './spans.ts';
import { PAGE_EXPIRES_AT } from './statePages.ts';

/** What one handler run produced, collected by its context. */
export interface HandlerEffects {
  readonly ctx: ActorContext<unknown>;
  /** Sends in call order, before sequence numbers are given; an ask carries its id. */
  readonly sends: Send[];
  reply: { set: boolean; value: unknown };
  /** Timers by id as the handler left them: scheduled (put) or cancelled (`null`). */
  readonly timers: Map<string, Timer | null>;
  /** Whether the handler called `ctx.halt()`. */
  halted: boolean;
  /** Pages of state the handler moved out (see `StatePages` in contextSlots.ts). */
  readonly pages: OverflowMark[];
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
  {
    inboxPosition,
    trace,
    handling,
    readPages,
  }: {
    inboxPosition?: string;
    /** Reads pages of the actor's state (see `StatePages` in contextSlots.ts); without it, from the store. */
    readPages?: StatePages['read'];
    trace?: HandlingTrace;
    /**
     * What tells this handling from every other of the actor, in any of its lives: the ids of
     * its asks and timer schedulings derive from it. The turn gives the record's life, the
     * version its commit builds on and the message's place in that commit. Default: the message
     * id (unique only while the message is, e.g. not for a client key reused after retention).
     */
    handling?: readonly unknown[];
  } = {},
): HandlerEffects {
  const self = parseActorId(actorId)!;
  const now = engine.clock.now();
  const payloadLimit = engine.store.limits.maxItemBytes / 2;
  let scheduled = 0;
  let asked = 0;
  // Unique over the actor's lives: a reply or a fire meant for an earlier ask or scheduling
  // (a late one, a redriven one) can never match a later one.
  const basis = handling ?? [envelope.id];
  const effects: HandlerEffects = {
    timers: new Map(),
    halted: false,
    pages: [],
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
      caller: callerOfEnvelope(envelope),
      send(to, name, payload) {
        const resolved = engine.registry.resolve(to.id, name, payload);
        checkPayloadSize(payloadLimit, `to ${to.id}`, name, resolved.payload, to.id);
        // A copy: the message is what was sent, whatever the handler changes afterwards.
        effects.sends.push({ to: to.id, name, payload: deepCopy(payload) });
      },
      start(workflow, id, input) {
        if (workflow?.kind !== 'workflow' || typeof workflow.ref !== 'function') {
          throw new BatonError(
            ErrorCode.INVALID_ARGUMENT,
            'ctx.start(workflow, id, input) takes a workflow() definition the app registers',
          );
        }
        const ref = workflow.ref(id);
        effects.ctx.send(ref as never, 'start' as never, { input } as never);
        return ref;
      },
      effect(effect, payload) {
        if (effect?.kind !== 'effect') {
          throw new BatonError(
            ErrorCode.INVALID_ARGUMENT,
            'ctx.effect(effect, payload) takes an effect() or webhook() definition the app registers',
          );
        }
        const { name } = effect;
        const parsed = engine.registry.effectPayload(name, payload);
        checkPayloadSize(payloadLimit, `for effect ${name}`, name, parsed);
        effects.sends.push({ to: effectTarget(name), name, payload: deepCopy(payload) });
      },
      ask(to, name, payload, options) {
        const resolved = engine.registry.resolve(to.id, name, payload);
        checkPayloadSize(payloadLimit, `to ${to.id}`, name, resolved.payload, to.id);
        const then = options?.onReply;
        const own = engine.registry.definition(self.type).handlers as Record<string, unknown>;
        if (typeof then !== 'string' || !Object.hasOwn(own, then)) {
          throw new BatonError(
            ErrorCode.INVALID_ARGUMENT,
            `ctx.ask(…, { onReply }) must name a handler of ${self.type} to receive the reply, got ${JSON.stringify(then)} (it has: ${Object.keys(own).join(', ')})`,
          );
        }
        const timeoutMs = options.timeoutMs ?? DEFAULT_ASK_TIMEOUT_MS;
        if (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs <= 0) {
          throw new BatonError(
            ErrorCode.INVALID_ARGUMENT,
            `ctx.ask(…, { timeoutMs }) must be a number of ms > 0, got ${String(timeoutMs)}`,
          );
        }
        const id = derivedId(basis, 'ask', asked++);
        const timeout = new BatonError(
          ErrorCode.ASK_TIMEOUT,
          `no reply from ${to.id} to "${name}" within ${timeoutMs} ms`,
          { details: { to: to.id, name, timeoutMs } },
        );
        const context = storable(`the context of an ask answered by "${then}"`, options.context);
        const reply = { ok: false, error: timeout.toJSON(), context: context ?? null };
        checkPayloadSize(payloadLimit, 'as the context of an ask', then, reply);
        // The timeout timer holds the continuation: the reply replaces its payload and removes it.
        effects.timers.set(askTimerId(id), {
          actorId,
          id: askTimerId(id),
          gen: id,
          at: dueAt(timeoutMs, now),
          name: then,
          payload: reply,
          ...(trace ? { traceparent: trace.child } : {}),
          createdAt: now,
        });
        effects.sends.push({ to: to.id, name, payload: deepCopy(payload), ask: id });
        return { id };
      },
      schedule(when, name, payload, options = {}) {
        const at = dueAt(when, now);
        engine.registry.resolve(actorId, name, payload);
        // Kept as JSON, as it fires after a restart and on every backend: checked as such now.
        const stored = storable(`the payload of timer "${name}"`, payload);
        try {
          engine.registry.resolve(actorId, name, stored);
        } catch (error) {
          throw new BatonError(
            ErrorCode.INVALID_PAYLOAD,
            `the payload of timer "${name}" passes its schema but not once stored as JSON, as it fires (a Date becomes an ISO string, undefined fields vanish): declare what JSON gives back (e.g. z.coerce.date()) or schedule JSON values. ${(error as Error).message}`,
            { details: { name }, cause: error },
          );
        }
        checkPayloadSize(payloadLimit, 'scheduled', name, stored);
        const gen = derivedId(basis, 'timer', scheduled++);
        const id = options.id === undefined ? gen : checkTimerId(options.id);
        effects.timers.set(id, {
          actorId,
          id,
          gen,
          at,
          name,
          payload: stored,
          ...(trace ? { traceparent: trace.child } : {}),
          createdAt: now,
        });
        return { id, at };
      },
      cancel(timer) {
        const id = typeof timer === 'string' ? timer : timer?.id;
        effects.timers.set(checkTimerId(id), null);
      },
      reply(value) {
        effects.reply = { set: true, value };
      },
      halt() {
        effects.halted = true;
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
  // Workflows give each step and command a span under this handling's (see startInnerSpan);
  // without OpenTelemetry there is none, and they skip looking for what to record.
  if (engine.openTelemetry && trace) {
    Object.defineProperty(effects.ctx, INNER_SPAN, {
      value: (
        name: string,
        attributes: Record<string, string | number | boolean>,
        options?: InnerSpanOptions,
      ) => startInnerSpan(engine.openTelemetry, trace, name, attributes, options),
    });
  }
  Object.defineProperty(effects.ctx, TURN_TRACE, { value: trace?.child });
  Object.defineProperty(effects.ctx, WARM_CACHE, { value: engine.warm });
  const pages: StatePages = {
    put(id, value) {
      effects.pages.push({ kind: 'page', peer: id, mark: value, expiresAt: PAGE_EXPIRES_AT });
    },
    drop(id) {
      effects.pages.push({ kind: 'page', peer: id, mark: null, expiresAt: now });
    },
    read:
      readPages ??
      (async (ids) => {
        const keys = ids.map((peer) => ({ kind: 'page' as const, peer }));
        const found = await engine.store.readOverflow(actorId, keys);
        return new Map(found.map((page) => [page.peer, page.mark]));
      }),
  };
  Object.defineProperty(effects.ctx, STATE_PAGES, { value: pages });
  return effects;
}

/** Throws MESSAGE_TOO_LARGE when `payload` is over `limit` bytes of JSON. */
function checkPayloadSize(
  limit: number,
  what: string,
  name: string,
  payload: unknown,
  to?: string,
): void {
  const size = jsonSize(payload);
  if (size > limit) {
    throw new BatonError(
      ErrorCode.MESSAGE_TOO_LARGE,
      `payload of "${name}" ${what} is ${size} bytes; the limit is ${limit}: store large data elsewhere and send a reference`,
      { details: { ...(to === undefined ? {} : { to }), name, size, limit } },
    );
  }
}

/** The id of a handling's `n`-th ask or scheduling (`kind`), from what tells the handling apart. */
function derivedId(basis: readonly unknown[], kind: string, n: number): string {
  return messageFingerprint(kind, [...basis, n]).slice(0, 16);
}

/** `value` as storage keeps it (JSON), or INVALID_PAYLOAD when JSON cannot hold it. */
function storable(what: string, value: unknown): unknown {
  try {
    return asJson(value);
  } catch (error) {
    throw new BatonError(
      ErrorCode.INVALID_PAYLOAD,
      `${what} must be JSON, as it is stored: ${(error as Error).message}`,
      { cause: error },
    );
  }
}

/** How long an ask waits for its reply by default: a day. */
const DEFAULT_ASK_TIMEOUT_MS = 24 * 60 * 60 * 1000;

/** Timer ids are keys in the store: short, non-empty text. */
const MAX_TIMER_ID_LENGTH = 256;

function checkTimerId(id: unknown): string {
  if (typeof id !== 'string' || id.length === 0 || id.length > MAX_TIMER_ID_LENGTH) {
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      `a timer id must be a non-empty string of at most ${MAX_TIMER_ID_LENGTH} characters, got ${JSON.stringify(id)}`,
    );
  }
  return id;
}

/** When `schedule(when)` is due: `when` ms after `now`, or at the `Date`. */
function dueAt(when: number | Date, now: number): number {
  if (typeof when !== 'number' && !(when instanceof Date)) {
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      `ctx.schedule(when, …) takes a delay in ms or a Date, got ${JSON.stringify(when)}`,
    );
  }
  const at = when instanceof Date ? when.getTime() : now + when;
  if (!Number.isFinite(at) || (typeof when === 'number' && when < 0)) {
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      `ctx.schedule(when, …) needs a delay ≥ 0 ms or a valid Date, got ${String(when)}`,
    );
  }
  return at;
}

/**
 * Who sent an envelope: the actor that sent it, the actor's own timer, or the caller the door
 * named (an ingress message of older code, which named none, counts as anonymous).
 */
function callerOfEnvelope(envelope: Envelope): Caller {
  if (isActorSender(envelope)) return { kind: 'actor', actor: envelope.from };
  if (envelope.from === INGRESS) return envelope.caller ?? ANONYMOUS;
  return { kind: 'timer' };
}
