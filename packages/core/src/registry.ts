/**
 * The registry of an app's actor types: looks definitions up by name and validates messages
 * against them, for the client (before anything is enqueued) and the engine (before a handler).
 */
import { type AnyActorDefinition, checkActorKey, type HandlerSpec } from './actor.ts';
import type { AnyEffectDefinition } from './effect.ts';
import { BatonError, batonError, ErrorCode, invalidArgument } from './errors.ts';
import type { Schema } from './schema.ts';
import { parseActorId } from './shared/actorId.ts';
import { clip } from './shared/clip.ts';
import { schemaIssues } from './shared/schemaIssues.ts';

export type AnyHandler = HandlerSpec<unknown, Schema, unknown>;

export interface ResolvedMessage {
  readonly definition: AnyActorDefinition;
  readonly key: string;
  readonly handler: AnyHandler;
  /** The payload as the schema parsed it (defaults applied, transforms run). */
  readonly payload: unknown;
}

export class Registry {
  readonly #types: ReadonlyMap<string, AnyActorDefinition>;
  readonly #effects: ReadonlyMap<string, AnyEffectDefinition>;

  constructor(
    definitions: readonly AnyActorDefinition[],
    effects: readonly AnyEffectDefinition[] = [],
  ) {
    this.#effects = byName(effects, 'effects');
    this.#types = byName(definitions, 'actor types');
  }

  /** The effect named `name`; throws UNKNOWN_MESSAGE for one the app does not register. */
  effect(name: string): AnyEffectDefinition {
    const effect = this.#effects.get(name);
    if (!effect) {
      throw batonError(
        ErrorCode.UNKNOWN_MESSAGE,
        `unknown effect "${name}": register it with the app's effects (known: ${[...this.#effects.keys()].join(', ') || 'none'})`,
        { effect: name },
      );
    }
    return effect;
  }

  /** `payload` parsed by effect `name`'s schema; throws INVALID_PAYLOAD naming the fields. */
  effectPayload(name: string, payload: unknown): unknown {
    const effect = this.effect(name);
    return parseWith(effect.payload, `effect "${name}"`, payload, { effect: name });
  }

  get types(): string[] {
    return [...this.#types.keys()];
  }

  /** Whether the app registers actor type `type`. */
  has(type: string): boolean {
    return this.#types.has(type);
  }

  definition(type: string): AnyActorDefinition {
    const definition = this.#types.get(type);
    if (!definition) {
      throw batonError(
        ErrorCode.UNKNOWN_ACTOR,
        `unknown actor type "${clip(type)}": register it with the app (known: ${this.types.join(', ') || 'none'})` +
          // A workflow's instances are actors of type `wf-<name>`.
          (type.startsWith('wf-')
            ? `; for workflow "${clip(type.slice(3))}", pass it as defineApp's workflows (or its .actor among the actors)`
            : ''),
        { type: clip(type) },
      );
    }
    return definition;
  }

  /**
   * Finds the handler for `name` on actor `to` and parses the payload; throws a terminal error
   * (INVALID_REF for an id that is not `type/key` or whose key breaks the key limits, see
   * {@link checkActorKey}).
   */
  resolve(to: string, name: string, payload: unknown): ResolvedMessage {
    const parsed = typeof to === 'string' ? parseActorId(to) : undefined;
    if (!parsed) {
      throw new BatonError(
        ErrorCode.INVALID_REF,
        `"${clip(String(to))}" is not an actor id of the form type/key`,
      );
    }
    checkActorKey(parsed.type, parsed.key, `the actor id "${parsed.type}/…"`);
    const definition = this.definition(parsed.type);
    const handlers = definition.handlers as Record<string, AnyHandler>;
    const handler = Object.hasOwn(handlers, name) ? handlers[name] : undefined;
    if (!handler) {
      throw batonError(
        ErrorCode.UNKNOWN_MESSAGE,
        `actor type "${parsed.type}" has no handler "${clip(name)}" (it has: ${Object.keys(handlers).join(', ')})`,
        { type: parsed.type, name: clip(name) },
      );
    }
    return {
      definition,
      key: parsed.key,
      handler,
      payload: parsePayload(handler, to, name, payload),
    };
  }
}

function parsePayload(handler: AnyHandler, to: string, name: string, payload: unknown): unknown {
  return parseWith(handler.payload, `${to} "${name}"`, payload, { to, name });
}

/** `list` by name; two of one name (`what` they are) are refused. */
function byName<T extends { readonly name: string }>(
  list: readonly T[],
  what: string,
): Map<string, T> {
  const named = new Map<string, T>();
  for (const item of list) {
    if (named.has(item.name)) {
      throw invalidArgument(`two ${what} are named "${item.name}": give each a unique name`);
    }
    named.set(item.name, item);
  }
  return named;
}

/** `payload` parsed by `schema`, or INVALID_PAYLOAD naming each field (`what`: for what). */
function parseWith(
  schema: Schema,
  what: string,
  payload: unknown,
  details: Record<string, unknown>,
): unknown {
  const result = schema.safeParse(payload);
  if (result.success) return result.data;
  const { found: issues, summary, more } = schemaIssues('payload', result.error.issues);
  throw batonError(ErrorCode.INVALID_PAYLOAD, `invalid payload for ${what}: ${summary}`, {
    ...details,
    issues,
    ...(more > 0 ? { moreIssues: more } : {}),
  });
}
