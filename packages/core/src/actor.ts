/**
 * `actor()`: an actor type is a name, a zod schema for its state, the state of a new actor, and
 * one handler per message name, each with a zod schema for its payload. The definition carries
 * every type, so refs, sends and asks type-check against it.
 */
import type * as z from 'zod';
import type { ActorContext } from './ActorContext.ts';
import type { Caller } from './caller.ts';
import { BatonError, batonError, ErrorCode, invalidArgument } from './errors.ts';
import type { JsonOf } from './jsonOf.ts';
import { MAX_ACTOR_KEY_BYTES, nameTooLong } from './limits.ts';
import type { Schema } from './schema.ts';
import { actorId } from './shared/actorId.ts';
import { utf8Bytes } from './shared/utf8.ts';
import { checkStateSchema } from './stateSchema.ts';
import { checkStateVersions, type Migration } from './stateVersions.ts';

/** The actor a message goes to, as an `authorize` check sees it. */
export interface Target {
  readonly type: string;
  readonly key: string;
  /** `type/key` */
  readonly id: string;
}

/**
 * Decides whether `caller` may send this message to `target` (after its payload parsed): return
 * `true` to let it through. Runs at the door, before anything is enqueued; a refusal is
 * FORBIDDEN. Synchronous: checks that need state belong in the handler, which sees `ctx.caller`.
 *
 * @example
 * const ownAccount: Authorize<{ amount: number }> = (caller, target) =>
 *   caller.kind === 'user' && (caller.identity as { userId: string }).userId === target.key;
 */
export type Authorize<Payload> = (caller: Caller, target: Target, payload: Payload) => boolean;

/** A handler: the schema of its payload and the function that applies it. */
export interface HandlerSpec<State, Payload extends Schema, Reply> {
  readonly payload: Payload;
  /** Changes `ctx.state` in place; what it returns is the reply an asker receives. */
  readonly handle: (ctx: ActorContext<State>, payload: z.output<Payload>) => Reply | Promise<Reply>;
  /**
   * Whether clients may send it (the WebSocket hosts, the HTTP ingress, a `Client` speaking for
   * a caller). A handler that is not public is internal: only actors, timers and trusted server
   * code (`client.asSystem()`) send it, and every door refuses it (FORBIDDEN). @default false
   */
  readonly public?: boolean;
  /** For a public handler: who may send it, to which actor, with which payload. @default anyone */
  readonly authorize?: Authorize<z.output<Payload>>;
}

export interface ActorOptions<Name extends string, StateSchema extends Schema, Handlers> {
  /** The actor type: the `type` in every id `type/key`. Letters, digits, `-` and `_`. */
  readonly name: Name;
  readonly state: StateSchema;
  /** The state of an actor that has never committed. */
  readonly initial: (key: string) => z.output<StateSchema>;
  readonly handlers: Handlers;
  /**
   * The version of the state's shape. Raise it when the state schema changes, with a `migrate`
   * step from each earlier version: a record written by an earlier version is migrated when it
   * is next loaded. A loaded state is not parsed, so a field added with `.default()` is not
   * filled in on records written before it: add it in a `migrate` step. @default 1
   */
  readonly version?: number;
  /** Per earlier version `v`: turns a state written by version `v` into version `v + 1`'s. */
  readonly migrate?: Readonly<Record<number, Migration>>;
  /**
   * Whether each turn checks the state it commits against `state` (a handler that breaks the
   * schema fails its message with INVALID_STATE). Turn it off only for an actor whose turns
   * are measured too hot to pay for the check. @default true
   */
  readonly validateState?: boolean;
}

/** A reference to one actor: its type and key. Build it with `Definition.ref(key)`. */
export interface ActorRef<Def extends AnyActorDefinition = AnyActorDefinition> {
  readonly type: Def['name'];
  readonly key: string;
  /** `type/key` */
  readonly id: string;
  /** Type-only marker; never set. */
  readonly __def?: Def;
}

export interface ActorDefinition<Name extends string, StateSchema extends Schema, Handlers>
  extends ActorOptions<Name, StateSchema, Handlers> {
  readonly kind: 'actor';
  readonly version: number;
  /**
   * @example
   * ctx.send(Account.ref('alice'), 'deposit', { amount: 5 });
   */
  ref(key: string): ActorRef<ActorDefinition<Name, StateSchema, Handlers>>;
}

export type AnyActorDefinition = ActorDefinition<string, Schema, any>;

/**
 * The message names of an actor definition. Written with `Extract` so that TypeScript shows the
 * names themselves (`"addItem" | "checkout"`) in an error about a misspelt one, not this alias.
 */
export type MessageName<Def extends AnyActorDefinition> = Extract<keyof Def['handlers'], string>;

/**
 * The message names a client may send: handlers with `public: true`, and those public as their
 * workflow is (a workflow's `start`, `signal`, `cancel`: `public: boolean`). An internal handler,
 * which the server refuses to clients (FORBIDDEN), is no name of `BatonClient.send`. Like
 * {@link MessageName}, an error shows the public names themselves.
 */
export type PublicMessageName<Def extends AnyActorDefinition> = Extract<
  {
    [K in MessageName<Def>]: Def['handlers'][K] extends { readonly public: infer P }
      ? true extends P
        ? K
        : never
      : never;
  }[MessageName<Def>],
  string
>;

/** The payload type (the schema's input) of a message. */
export type PayloadOf<
  Def extends AnyActorDefinition,
  Name extends MessageName<Def>,
> = Def['handlers'][Name] extends { payload: infer P extends Schema } ? z.input<P> : never;

/**
 * What an ask of that message resolves with: the handler's return value as it reads back from
 * JSON, in which the reply is committed ({@link JsonOf}: a Date as its ISO string, a Map or a Set
 * as `{}`); plain data as its own type.
 */
export type ReplyOf<
  Def extends AnyActorDefinition,
  Name extends MessageName<Def>,
> = Def['handlers'][Name] extends { handle: (...args: never[]) => infer R }
  ? JsonOf<Awaited<R>>
  : never;

export type StateOf<Def extends AnyActorDefinition> = z.output<Def['state']>;

const NAME = /^[A-Za-z][A-Za-z0-9_-]*$/;

/** What the names of workflows' actors begin with (`wf-<name>`); no other actor's may. */
export const WORKFLOW_TYPE_PREFIX = 'wf-';

/** Marks the options of the actor a `workflow()` defines, the one kind that takes the prefix. */
export const WORKFLOW_ACTOR: unique symbol = Symbol('baton.workflowActor');

/**
 * Defines an actor type.
 *
 * @example
 * const Account = actor({
 *   name: 'account',
 *   state: z.object({ balance: z.number() }),
 *   initial: () => ({ balance: 0 }),
 *   handlers: {
 *     deposit: {
 *       public: true, // clients may send it; handlers without it only actors send
 *       payload: z.object({ amount: z.number().positive() }),
 *       handle: (ctx, { amount }) => {
 *         ctx.state.balance += amount;
 *         return ctx.state.balance;
 *       },
 *     },
 *   },
 * });
 */
export function actor<
  const Name extends string,
  StateSchema extends Schema,
  Payloads extends Record<string, Schema>,
  Handlers,
>(options: {
  readonly name: Name;
  readonly state: StateSchema;
  readonly initial: (key: string) => z.output<StateSchema>;
  readonly version?: number;
  readonly migrate?: Readonly<Record<number, Migration>>;
  readonly validateState?: boolean;
  // Inference: `Payloads` types each handler's payload parameter, while `Handlers` keeps the
  // handlers exactly as written so that their replies stay typed.
  readonly handlers: Handlers & {
    [K in keyof Payloads]: {
      payload: Payloads[K];
      public?: boolean;
      authorize?: Authorize<z.output<Payloads[K]>>;
      handle: (
        ctx: ActorContext<z.output<StateSchema>, { [M in keyof Payloads]: z.input<Payloads[M]> }>,
        payload: z.output<Payloads[K]>,
      ) => unknown;
    };
  };
}): ActorDefinition<Name, StateSchema, Handlers> {
  if (!NAME.test(options.name)) {
    throw invalidArgument(
      `actor name "${options.name}" is not valid: use a letter followed by letters, digits, "-" or "_"`,
    );
  }
  const long = nameTooLong(options.name);
  if (long)
    throw invalidArgument(`actor name "${options.name.slice(0, 40)}…" is too long: ${long}`);
  if (
    options.name.startsWith(WORKFLOW_TYPE_PREFIX) &&
    (options as { [WORKFLOW_ACTOR]?: true })[WORKFLOW_ACTOR] !== true
  ) {
    throw invalidArgument(
      `actor name "${options.name}" is reserved: "${WORKFLOW_TYPE_PREFIX}" begins the names of workflows' actors, whose timers and messages Baton keeps for itself; rename the actor`,
    );
  }
  checkAccess(options.name, options.handlers as Record<string, Partial<AnyHandlerSpec>>);
  const version = options.version ?? 1;
  checkStateVersions(options.name, version, options.migrate);
  checkStateSchema(options.name, options.state);
  const definition: ActorDefinition<Name, StateSchema, Handlers> = {
    ...(options as ActorOptions<Name, StateSchema, Handlers>),
    kind: 'actor',
    version,
    ref(key) {
      if (typeof key !== 'string' || key.length === 0) {
        throw new BatonError(
          ErrorCode.INVALID_REF,
          `${options.name}.ref(key) needs a non-empty string key, got ${JSON.stringify(key)}`,
        );
      }
      checkActorKey(options.name, key, `${options.name}.ref(key)`);
      return { type: options.name, key, id: actorId(options.name, key) };
    },
  };
  return definition;
}

type AnyHandlerSpec = HandlerSpec<unknown, Schema, unknown>;

/** `public` is a boolean; `authorize` a function, only on a public handler. */
function checkAccess(type: string, handlers: Record<string, Partial<AnyHandlerSpec>>): void {
  const problems: string[] = [];
  for (const [name, spec] of Object.entries(handlers ?? {})) {
    const long = nameTooLong(name);
    if (long) problems.push(`"${name.slice(0, 40)}…": ${long}`);
    if (spec?.public !== undefined && typeof spec.public !== 'boolean') {
      problems.push(`"${name}": public must be true or false`);
    }
    if (spec?.authorize !== undefined) {
      if (typeof spec.authorize !== 'function') {
        problems.push(
          `"${name}": authorize must be a function (caller, target, payload) => boolean`,
        );
      } else if (spec.public !== true) {
        problems.push(
          `"${name}": authorize applies to public handlers only: add public: true, or drop authorize`,
        );
      }
    }
  }
  if (problems.length > 0) {
    throw invalidArgument(`actor "${type}" has invalid handlers: ${problems.join('; ')}`, {
      problems,
    });
  }
}

/**
 * Throws INVALID_REF unless `key` fits DynamoDB's key limits: at most {@link MAX_ACTOR_KEY_BYTES}
 * UTF-8 bytes, and well-formed Unicode (an unpaired surrogate has no UTF-8 form, so two such
 * keys could name one stored actor). `where` names the call in the message.
 *
 * @example
 * checkActorKey('account', key, 'Account.ref(key)');
 */
export function checkActorKey(type: string, key: string, where: string): void {
  const bytes = utf8Bytes(key);
  if (bytes === undefined) {
    throw batonError(
      ErrorCode.INVALID_REF,
      `${where}: the key of a ${type} actor holds an unpaired UTF-16 surrogate, which has no ` +
        'UTF-8 form: use a key of well-formed text',
      { type },
    );
  }
  if (bytes > MAX_ACTOR_KEY_BYTES) {
    throw batonError(
      ErrorCode.INVALID_REF,
      `${where}: the key of a ${type} actor is ${bytes} UTF-8 bytes, more than the ` +
        `${MAX_ACTOR_KEY_BYTES} an actor key may have (DynamoDB key limits): use a shorter key, ` +
        'e.g. a hash of a long one',
      { type, limit: MAX_ACTOR_KEY_BYTES, actual: bytes },
    );
  }
}
