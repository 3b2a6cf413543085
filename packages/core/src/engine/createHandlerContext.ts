import type { ActorAskOptions, ActorContext, TimerHandle } from '../ActorContext.ts';
import type { ActorRef, AnyActorDefinition } from '../actor.ts';
import { askTimerId, type Envelope, effectTarget, parseActorId } from '../adapter/envelope.ts';
import { messageFingerprint } from '../adapter/fingerprint.ts';
import { checkPayloadSize, payloadLimit } from '../adapter/payloadLimit.ts';
import type { Timer } from '../adapter/storedRecords.ts';
import type { Caller } from '../caller.ts';
import {
  COMMIT_FIRST,
  CONFIRM_RECORD,
  INNER_SPAN,
  type InnerSpanSource,
  STATE_PAGES,
  type StatePages,
  TURN_DEADLINE,
  TURN_TRACE,
  type TurnDeadline,
  WARM_CACHE,
} from '../contextSlots.ts';
import type { AnyEffectDefinition } from '../effect.ts';
import { BatonError, batonError, ErrorCode, invalidArgument, isBatonError } from '../errors.ts';
import { childLogger, type Logger } from '../logger.ts';
import { uuidFrom } from '../shared/random.ts';
import type { AnyWorkflowDefinition, InputOf, WorkflowRefOf } from '../workflow/workflow.ts';
import { callerOfEnvelope } from './callerOfEnvelope.ts';
import { checkedPayload } from './checkedPayload.ts';
import type { TurnEngine } from './createEngine.ts';
import type { CtxMethod, HandlerCall } from './ctxMethods.ts';
import { checkTimerId, DEFAULT_ASK_TIMEOUT_MS, dueAt } from './handlerArguments.ts';
import type { HandlerEffects, HandlingOptions } from './handlerEffects.ts';
import type { HandlerSlots } from './handlerSlots.ts';
import { confirmed, NO_REPLY, NO_TIMERS } from './handlingDefaults.ts';
import { handlingLogFields } from './handlingLogFields.ts';
import { handlingPages } from './handlingPages.ts';

/**
 * Builds the context for one message: a draft of the state, and sends held until commit.
 * Sends are validated here, so a bad send fails the handler that made it, not its target.
 */
export function createHandlerContext(
  engine: TurnEngine,
  actorId: string,
  draft: unknown,
  envelope: Envelope,
  options: HandlingOptions,
): HandlerEffects {
  return HandlerContext.effectsOf(new HandlerContext(engine, actorId, draft, envelope, options));
}

type Ctx = ActorContext<unknown>;

/**
 * The `ActorContext` of one handling. A turn makes one for every message, and most handlers
 * use one or two of its methods: each method is made on first use (a getter), bound to its
 * context, so a handler may also pass one around or take it apart (`const { send } = ctx`).
 */
class HandlerContext implements ActorContext<unknown>, HandlerSlots {
  state: unknown;
  readonly self: { readonly type: string; readonly key: string; readonly id: string };
  readonly message: Ctx['message'];
  readonly caller: Caller;
  readonly #effects: HandlerEffects;
  readonly #engine: TurnEngine;
  readonly #envelope: Envelope;
  readonly #options: HandlingOptions;
  /** The handling's time: fixed for the message. */
  readonly #time: number;
  #scheduled = 0;
  #asked = 0;
  #log: Logger | undefined;
  #timers: Map<string, Timer | null> | undefined;
  #send: CtxMethod<'send'>;
  #start: CtxMethod<'start'>;
  #effect: CtxMethod<'effect'>;
  #ask: CtxMethod<'ask'>;
  #schedule: CtxMethod<'schedule'>;
  #cancel: CtxMethod<'cancel'>;
  #reply: CtxMethod<'reply'>;
  #halt: CtxMethod<'halt'>;
  #now: CtxMethod<'now'>;
  #random: CtxMethod<'random'>;
  #uuid: CtxMethod<'uuid'>;

  constructor(
    engine: TurnEngine,
    actorId: string,
    draft: unknown,
    envelope: Envelope,
    options: HandlingOptions,
  ) {
    const self = parseActorId(actorId)!;
    this.state = draft;
    this.self = { type: self.type, key: self.key, id: actorId };
    const { id, from, name, sentAt } = envelope;
    this.message = { id, from, name, sentAt };
    this.caller = callerOfEnvelope(envelope);
    this.#engine = engine;
    this.#envelope = envelope;
    this.#options = options;
    this.#time = options.now;
    this.#effects = {
      ctx: this,
      sends: [],
      reply: NO_REPLY,
      timers: NO_TIMERS,
      halted: false,
      pages: [],
      commitFirst: false,
      ended: false,
    };
  }

  /** What the handling produced: read by the turn, not part of the handler's context. */
  static effectsOf(ctx: HandlerContext): HandlerEffects {
    return ctx.#effects;
  }

  /**
   * A message's payload as it is stored and its receiver reads it (a copy: the message is what
   * was sent, whatever the handler changes afterwards), checked against the receiver's schema
   * and the payload limit.
   */
  #messagePayload(to: ActorRef, name: string, payload: unknown, limit: number): unknown {
    return checkedPayload(
      `the payload of "${name}" to ${to.id}`,
      payload,
      (p) => this.#engine.registry.resolve(to.id, name, p),
      (stored) => checkPayloadSize(limit, `to ${to.id}`, name, stored, to.id),
    );
  }

  /**
   * `call`, a ctx method, whose refusals name this handler, which made the call, in the message
   * and in `details.sentBy`: the engine keeps the message of a handler that lets one escape as a
   * dead letter. Once the handler has returned, `call` is refused: a call in a promise the handler
   * did not await would change a turn that went on without it, and be lost without a word.
   */
  #named<A extends unknown[], R>(call: HandlerCall<A, R>): HandlerCall<A, R> {
    return (...args) => {
      if (this.#effects.ended) {
        throw invalidArgument(
          `ctx called after handler "${this.#envelope.name}" of ${this.self.id} returned did nothing: await each call before the handler returns`,
        );
      }
      try {
        return call(...args);
      } catch (error) {
        if (!isBatonError(error) || error.details.sentBy) throw error;
        const sentBy = { actor: this.self.id, handler: this.#envelope.name };
        throw new BatonError(
          error.code,
          `in handler "${sentBy.handler}" of ${sentBy.actor}: ${error.message}`,
          { details: { ...error.details, sentBy } },
        );
      }
    };
  }

  get send(): Ctx['send'] {
    this.#send ??= this.#named(
      (to: ActorRef<AnyActorDefinition>, name: string, payload: unknown): void => {
        const stored = this.#messagePayload(to, name, payload, this.#payloadLimit());
        this.#effects.sends.push({ to: to.id, name, payload: stored });
      },
    );
    return this.#send;
  }

  get start(): Ctx['start'] {
    this.#start ??= this.#named(
      <W extends AnyWorkflowDefinition>(
        workflow: W,
        id: string,
        input: InputOf<W>,
      ): WorkflowRefOf<W> => {
        if (workflow?.kind !== 'workflow' || typeof workflow.ref !== 'function') {
          throw invalidArgument(
            'ctx.start(workflow, id, input) takes a workflow() definition the app registers',
          );
        }
        const ref = workflow.ref(id);
        this.send(ref as never, 'start', { input });
        return ref;
      },
    );
    return this.#start;
  }

  get effect(): Ctx['effect'] {
    this.#effect ??= this.#named((effect: AnyEffectDefinition, payload: unknown): void => {
      if (effect?.kind !== 'effect') {
        throw invalidArgument(
          'ctx.effect(effect, payload) takes an effect() or webhook() definition the app registers',
        );
      }
      const { name } = effect;
      const stored = checkedPayload(
        `the payload of effect "${name}"`,
        payload,
        (p) => this.#engine.registry.effectPayload(name, p),
        (p) => checkPayloadSize(this.#payloadLimit(), `for effect ${name}`, name, p),
      );
      this.#effects.sends.push({ to: effectTarget(name), name, payload: stored });
    });
    return this.#effect;
  }

  get ask(): Ctx['ask'] {
    this.#ask ??= this.#named(
      (
        to: ActorRef<AnyActorDefinition>,
        name: string,
        payload: unknown,
        options: ActorAskOptions<string>,
      ): { readonly id: string } => {
        const engine = this.#engine;
        const payloadLimit = this.#payloadLimit();
        const stored = this.#messagePayload(to, name, payload, payloadLimit);
        const then = options?.onReply;
        const own = engine.registry.definition(this.self.type).handlers as Record<string, unknown>;
        if (typeof then !== 'string' || !Object.hasOwn(own, then)) {
          throw invalidArgument(
            `ctx.ask(…, { onReply }) must name a handler of ${this.self.type} to receive the reply, got ${JSON.stringify(then)} (it has: ${Object.keys(own).join(', ')})`,
          );
        }
        const timeoutMs = options.timeoutMs ?? DEFAULT_ASK_TIMEOUT_MS;
        if (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs <= 0) {
          throw invalidArgument(
            `ctx.ask(…, { timeoutMs }) must be a number of ms > 0, got ${String(timeoutMs)}`,
          );
        }
        const id = this.#derivedId('ask', this.#asked++);
        const timeout = batonError(
          ErrorCode.ASK_TIMEOUT,
          `no reply from ${to.id} to "${name}" within ${timeoutMs} ms`,
          { to: to.id, name, timeoutMs },
        );
        const error = timeout.toJSON();
        // The timeout's reply, context and all, is what the timer stores.
        const asReply = (context: unknown) => ({ ok: false, error, context: context ?? null });
        const context = checkedPayload(
          `the context of an ask answered by "${then}"`,
          options.context,
          undefined,
          (c) => checkPayloadSize(payloadLimit, 'as the context of an ask', then, asReply(c)),
        );
        const reply = asReply(context);
        // The timeout timer holds the continuation: the reply replaces its payload and removes it.
        const at = dueAt(timeoutMs, this.#time);
        this.#setTimer(askTimerId(id), this.#timer(askTimerId(id), id, at, then, reply));
        this.#effects.sends.push({ to: to.id, name, payload: stored, ask: id });
        return { id };
      },
    );
    return this.#ask;
  }

  get schedule(): Ctx['schedule'] {
    this.#schedule ??= this.#named(
      (
        when: number | Date,
        name: string,
        payload: unknown,
        options: { id?: string } = {},
      ): TimerHandle => {
        const at = dueAt(when, this.#time);
        const { registry } = this.#engine;
        const actorId = this.self.id;
        // Kept as JSON, as it fires after a restart and on every backend: checked as such now.
        const stored = checkedPayload(
          `the payload of timer "${name}"`,
          payload,
          (p) => registry.resolve(actorId, name, p),
          (p) => checkPayloadSize(this.#payloadLimit(), 'scheduled', name, p),
        );
        const gen = this.#derivedId('timer', this.#scheduled++);
        const id = options.id === undefined ? gen : checkTimerId(options.id);
        this.#setTimer(id, this.#timer(id, gen, at, name, stored));
        return { id, at };
      },
    );
    return this.#schedule;
  }

  get cancel(): Ctx['cancel'] {
    this.#cancel ??= this.#named((timer: TimerHandle | string): void => {
      const id = typeof timer === 'string' ? timer : timer?.id;
      this.#setTimer(checkTimerId(id), null);
    });
    return this.#cancel;
  }

  get reply(): Ctx['reply'] {
    this.#reply ??= this.#named((value: unknown): void => {
      this.#effects.reply = { set: true, value };
    });
    return this.#reply;
  }

  get halt(): Ctx['halt'] {
    this.#halt ??= this.#named((): void => {
      this.#effects.halted = true;
    });
    return this.#halt;
  }

  get now(): Ctx['now'] {
    this.#now ??= (): number => this.#time;
    return this.#now;
  }

  get random(): Ctx['random'] {
    this.#random ??= (): number => this.#engine.random();
    return this.#random;
  }

  get uuid(): Ctx['uuid'] {
    this.#uuid ??= (): string => uuidFrom(this.#engine.random);
    return this.#uuid;
  }

  /** The engine's logger with the handling's fields: made on first use. */
  get log(): Logger {
    this.#log ??= childLogger(
      this.#engine.logger,
      handlingLogFields(this.self.id, this.#envelope, this.#options),
    );
    return this.#log;
  }

  get [TURN_TRACE](): string | undefined {
    return this.#options.trace?.child;
  }

  get [INNER_SPAN](): InnerSpanSource | undefined {
    const { openTelemetry } = this.#engine;
    const { trace } = this.#options;
    return openTelemetry && trace ? { openTelemetry, trace } : undefined;
  }

  get [WARM_CACHE](): TurnEngine['warm'] {
    return this.#engine.warm;
  }

  get [CONFIRM_RECORD](): () => Promise<void> {
    return this.#options.confirmRecord ?? confirmed;
  }

  get [COMMIT_FIRST](): (() => void) | undefined {
    if (this.#options.uncommitted !== true) return undefined;
    const effects = this.#effects;
    return () => {
      effects.commitFirst = true;
    };
  }

  get [TURN_DEADLINE](): TurnDeadline | undefined {
    return this.#options.deadline;
  }

  get [STATE_PAGES](): StatePages {
    return handlingPages(this.#effects, this.#time, this.#engine.store, this.#options.readPages);
  }

  #payloadLimit(): number {
    return payloadLimit(this.#engine.store.limits);
  }

  /**
   * The id of this handling's `n`-th ask or scheduling (`kind`). Unique over the actor's lives:
   * a reply or a fire meant for an earlier ask or scheduling (a late one, a redriven one) can
   * never match a later one.
   */
  #derivedId(kind: string, n: number): string {
    const basis = this.#options.handling;
    return messageFingerprint(kind, [...basis, n]).slice(0, 16);
  }

  /** Puts (or, `null`, removes) timer `id` with this handling; the map is made on first use. */
  #setTimer(id: string, timer: Timer | null): void {
    this.#timers ??= new Map();
    this.#effects.timers = this.#timers;
    this.#timers.set(id, timer);
  }

  /** A stored timer of this actor, scheduled by this handling. */
  #timer(id: string, gen: string, at: number, name: string, payload: unknown): Timer {
    const { trace } = this.#options;
    return {
      actorId: this.self.id,
      id,
      gen,
      at,
      name,
      payload,
      ...(trace && { traceparent: trace.child }),
      createdAt: this.#time,
    };
  }
}
