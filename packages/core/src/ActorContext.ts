/**
 * The handler context: what a handler sees of its actor and the world during one message.
 */

import type * as z from 'zod';
import type { ActorRef, AnyActorDefinition, MessageName, PayloadOf } from './actor.ts';
import type { Caller } from './caller.ts';
import type { AnyEffectDefinition } from './effect.ts';
import type { SerializedError } from './errors.ts';
import type { Logger } from './logger.ts';
import type { AnyWorkflowDefinition, InputOf, WorkflowRefOf } from './workflow/workflow.ts';

/** A scheduled timer, as `ctx.schedule` returns it: pass it (or its id) to `ctx.cancel`. */
export interface TimerHandle {
  /** Unique within the actor: the id given to `schedule`, or one made for this scheduling. */
  readonly id: string;
  /** When it is due, epoch ms. */
  readonly at: number;
}

/**
 * What an ask's continuation handler receives: the reply (the asked handler's return value, or
 * the error that rejected it, or ASK_TIMEOUT) and the `context` the asker gave. Declare the
 * continuation's payload as `z.custom<AskReply<Reply, Context>>()`: the engine builds it. The
 * reply comes as JSON gives it back: for `Reply`, `ReplyOf<typeof Stock, 'reserve'>` says so
 * (a Date the handler returns is its ISO string here).
 */
export type AskReply<Value = unknown, Context = unknown> =
  | { readonly ok: true; readonly value: Value; readonly context: Context }
  | { readonly ok: false; readonly error: SerializedError; readonly context: Context };

/** Options of `ctx.ask`. */
export interface ActorAskOptions<Handler extends string> {
  /**
   * This actor's handler that receives the {@link AskReply}. (Not `then`: an options object
   * with a `then` would pass for a promise.)
   */
  readonly onReply: Handler;
  /** Kept with this actor until the reply comes, and handed to `onReply` with it (JSON). */
  readonly context?: unknown;
  /** When `onReply` receives ASK_TIMEOUT instead, if no reply came. @default 1 day */
  readonly timeoutMs?: number;
}

/** Options of `ctx.schedule`. */
export interface ScheduleOptions {
  /**
   * A stable id: scheduling an id again replaces its timer (a fire of the earlier one is
   * skipped), which suits "remind me once, at the latest time asked". @default a fresh id
   */
  readonly id?: string;
}

/** What an effect's `payload` schema takes. */
type PayloadInput<E extends AnyEffectDefinition> = z.input<E['payload']>;

/** The message a handler is handling, as `ctx.message` shows it (a part of its envelope). */
export interface HandledMessage {
  /**
   * The same for every copy of the message, and for a client's retry with its idempotency key.
   * A client's key names the message, so a key used again once its claim has lapsed (twice
   * the idempotency retention) gives a later message the same id; `sentAt` tells them apart.
   */
  readonly id: string;
  /** The sender: an actor id, `ingress` (a client) or `timer` (this actor's timer). */
  readonly from: string;
  readonly name: string;
  /** When it was sent, epoch ms. */
  readonly sentAt: number;
}

/**
 * The handler context. `Messages` maps this actor's message names to their payloads, so that
 * `ctx.schedule` type-checks against the actor's own handlers.
 */
export interface ActorContext<
  State,
  Messages extends Record<string, unknown> = Record<string, unknown>,
> {
  /** A draft of the state: read and change it in place. It commits only if the handler returns. */
  state: State;
  /** This actor. */
  readonly self: { readonly type: string; readonly key: string; readonly id: string };
  /** The message being handled. */
  readonly message: HandledMessage;
  /**
   * Who sent the message: the user (the identity the app's `auth` returned), an IAM principal,
   * an anonymous client, another actor, this actor's timer, or trusted server code.
   * @example
   * if (ctx.caller.kind === 'actor') ctx.log.info('from a peer', { peer: ctx.caller.actor });
   */
  readonly caller: Caller;
  /**
   * Sends a message to another actor. It leaves only after this turn commits, exactly once.
   * @example ctx.send(Account.ref('bob'), 'deposit', { amount: 5 });
   */
  send<Def extends AnyActorDefinition, Name extends MessageName<Def>>(
    to: ActorRef<Def>,
    name: Name,
    payload: PayloadOf<Def, Name>,
  ): void;
  /**
   * Starts workflow instance `id` of `workflow` with `input`: the `start` message leaves with
   * this turn's commit, exactly once (as `ctx.send(W.ref(id), 'start', { input })`). Idempotent
   * per id: an instance that exists already is left as it is. Returns its ref, e.g. to keep in
   * state and signal or cancel later.
   * @example
   * const order = ctx.start(Fulfil, `order-${ctx.state.next}`, { orderId, amount });
   */
  start<W extends AnyWorkflowDefinition>(
    workflow: W,
    id: string,
    input: InputOf<W>,
  ): WorkflowRefOf<W>;
  /**
   * Asks for an effect outside Baton (an `effect()` the app registers, e.g. a `webhook()`): it
   * leaves with this turn's commit and runs at least once, in order per actor, retried until it
   * succeeds or the queue dead-letters it, always with the same idempotency key.
   * @example
   * ctx.effect(Receipt, { email: ctx.state.email, amount });
   */
  effect<E extends AnyEffectDefinition>(effect: E, payload: PayloadInput<E>): void;
  /**
   * Asks another actor without waiting: sends `name` with `payload` to `to` with this turn, and
   * later delivers its reply — the asked handler's return value, or its rejection, or
   * ASK_TIMEOUT after `timeoutMs` — to this actor's handler `onReply`, exactly once, with the
   * `context` given here. The reply is kept with `to`'s turn, so it survives crashes like any
   * message. Asks never block a turn, so a cycle of asks cannot deadlock.
   * @example
   * ctx.ask(Stock.ref(sku), 'reserve', { qty }, { onReply: 'reserved', context: { orderId } });
   */
  ask<Def extends AnyActorDefinition, Name extends MessageName<Def>>(
    to: ActorRef<Def>,
    name: Name,
    payload: PayloadOf<Def, Name>,
    options: ActorAskOptions<keyof Messages & string>,
  ): { readonly id: string };
  /**
   * Schedules a message to this actor: `name` with `payload`, after `delay` ms or at a `Date`.
   * It is kept with the actor from this turn's commit and delivered through the inbox exactly
   * once, unless cancelled first. Timers survive crashes and restarts.
   * @example
   * const reminder = ctx.schedule(24 * 3600_000, 'expire', { order: 'o-1' });
   * ctx.state.reminder = reminder.id;
   */
  schedule<Name extends keyof Messages & string>(
    when: number | Date,
    name: Name,
    payload: Messages[Name],
    options?: ScheduleOptions,
  ): TimerHandle;
  /**
   * Cancels a timer of this actor, by handle or id, with this turn's commit: it will not fire,
   * even if its fire is already on the way. Cancelling a timer that fired or never was is a no-op.
   */
  cancel(timer: TimerHandle | string): void;
  /**
   * Ends this actor with this turn: its timers are cancelled, its state goes back to the
   * initial one (changes to `ctx.state` in this handler are discarded), and its record is
   * deleted after twice the engine's mark retention (56 days by default). Messages it sends in this turn still
   * go out. A later message finds a new actor, as if it had never existed.
   */
  halt(): void;
  /** Sets the reply an asker receives (the handler's return value does the same). */
  reply(value: unknown): void;
  /** The turn's time, epoch ms: fixed for the message, committed with its effects. */
  now(): number;
  /** A random number in [0, 1). */
  random(): number;
  /** A random UUID (v4). */
  uuid(): string;
  readonly log: Logger;
}
