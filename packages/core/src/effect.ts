/**
 * `effect()`: a side effect outside Baton — an HTTP webhook, a message to another queue, an
 * event — that a handler asks for with `ctx.effect(Effect, payload)`. It leaves with the turn's
 * commit, through the outbox and the inbox, and runs at least once, in order per sending actor:
 * a failure is retried with backoff until the queue's dead-letter queue takes it. Each run gets
 * the same idempotency key (the sending actor, its life and its sequence number), for the
 * target to recognise a retry.
 */
import type * as z from 'zod';
import { BatonError, ErrorCode } from './errors.ts';
import type { Schema } from './schema.ts';

/** What an effect's `run` gets besides the payload. */
export interface EffectContext {
  /**
   * Stable across every run of this effect, and never given to another effect, whatever the
   * actor's lives: `<actor id>:<life>.<seq>`, after the engine's `effectKeyNamespace` and a `:`
   * when it has one. Send it as the target's idempotency key.
   */
  readonly idempotencyKey: string;
  /** The actor that asked for it. */
  readonly actor: string;
  /**
   * Deliveries of this run's message so far: 1 on the first. It counts deliveries spent waiting
   * behind a failing effect of the same actor too.
   */
  readonly attempt: number;
}

export interface EffectDefinition<Name extends string, Payload extends Schema> {
  readonly kind: 'effect';
  readonly name: Name;
  readonly payload: Payload;
  /** Does the effect; throw to have it retried. */
  readonly run: (payload: z.output<Payload>, ctx: EffectContext) => Promise<void>;
}

export type AnyEffectDefinition = EffectDefinition<string, Schema>;

const NAME = /^[A-Za-z][A-Za-z0-9_-]*$/;

/** The inbox target of an effect's runs; no actor type can start with `$`. */
export const EFFECT_TYPE = '$effect';

/**
 * Defines an effect.
 *
 * @example
 * const Receipt = effect({
 *   name: 'receipt',
 *   payload: z.object({ email: z.string(), amount: z.number() }),
 *   run: async (payload, { idempotencyKey }) => mailer.send(payload, { idempotencyKey }),
 * });
 * // in a handler:
 * ctx.effect(Receipt, { email, amount });
 */
export function effect<const Name extends string, Payload extends Schema>(options: {
  readonly name: Name;
  readonly payload: Payload;
  readonly run: (payload: z.output<Payload>, ctx: EffectContext) => Promise<void>;
}): EffectDefinition<Name, Payload> {
  if (!NAME.test(options?.name ?? '')) {
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      `effect name ${JSON.stringify(options?.name)} is not valid: use a letter followed by letters, digits, "-" or "_"`,
    );
  }
  if (typeof options.run !== 'function') {
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      `effect "${options.name}" needs run: async (payload, { idempotencyKey }) => …`,
    );
  }
  return { kind: 'effect', ...options };
}

/**
 * An effect that POSTs its payload as JSON to `url`, with an `Idempotency-Key` header. A 2xx
 * answer is success; anything else, or no answer, is retried.
 *
 * @example
 * const Paid = webhook({ name: 'paid', url: 'https://example.com/hooks/paid', payload: z.object({ order: z.string() }) });
 */
export function webhook<const Name extends string, Payload extends Schema>(options: {
  readonly name: Name;
  readonly url: string;
  readonly payload: Payload;
  readonly headers?: Readonly<Record<string, string>>;
  /** @default 10 s */
  readonly timeoutMs?: number;
}): EffectDefinition<Name, Payload> {
  return effect({
    name: options.name,
    payload: options.payload,
    run: async (payload, { idempotencyKey }) => {
      const response = await fetch(options.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'idempotency-key': idempotencyKey,
          ...options.headers,
        },
        body: JSON.stringify(payload),
        signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
      });
      if (!response.ok) {
        throw new BatonError(
          ErrorCode.UNAVAILABLE,
          `webhook "${options.name}" answered ${response.status} ${response.statusText}`,
          { details: { status: response.status } },
        );
      }
    },
  });
}
