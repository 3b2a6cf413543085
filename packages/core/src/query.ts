/**
 * `query()`: a named, read-only function over committed actor state. A server runs it, records
 * every actor it reads as a dependency, and re-runs it when one of them commits a new version, so
 * subscribers always hold its newest result. Clocks, randomness and sends are unavailable inside a
 * query: its result must depend on the state it read and on nothing else.
 */
import type * as z from 'zod';
import type { ActorRef, AnyActorDefinition, StateOf } from './actor.ts';
import type { Caller } from './caller.ts';
import { invalidArgument } from './errors.ts';
import { nameTooLong } from './limits.ts';
import type { Schema } from './schema.ts';

/**
 * What a query handler sees: committed actor state, and who is asking.
 *
 * @example
 * handler: async (ctx: QueryContext<{ userId: string }>) => ctx.get(Account.ref(ctx.identity.userId))
 */
export interface QueryContext<Identity = unknown> {
  /**
   * The actor's committed state (its initial state if it never committed). Every read is a
   * dependency: the query runs again when that actor commits a newer version.
   * @example const { balance } = await ctx.get(Account.ref('alice'));
   */
  get<Def extends AnyActorDefinition>(ref: ActorRef<Def>): Promise<StateOf<Def>>;
  /** What the server's auth hook produced for the subscriber (`undefined` if none). */
  readonly identity: Identity;
  /**
   * Who subscribed: `{ kind: 'user', identity }` for a connection the app's `auth` accepted,
   * `{ kind: 'anonymous' }` without one. Check it before reading what only some may see.
   * @example
   * if (ctx.caller.kind !== 'user') throw new TerminalError('sign in first');
   */
  readonly caller: Caller<Identity>;
  /** @deprecated Not available in a query (results must depend on state only): throws. */
  readonly now: () => never;
  /** @deprecated Not available in a query (results must be deterministic): throws. */
  readonly random: () => never;
  /** @deprecated Not available in a query (results must be deterministic): throws. */
  readonly uuid: () => never;
  /** @deprecated Not available in a query (queries are read-only): throws. */
  readonly send: (...args: readonly unknown[]) => never;
}

/**
 * A query handler: reads through `ctx`, returns a JSON value.
 *
 * @example
 * const handler: QueryHandler<typeof args, number, unknown> = async (ctx, { key }) =>
 *   (await ctx.get(Account.ref(key))).balance;
 */
export type QueryHandler<ArgsSchema extends Schema, Result, Identity> = (
  ctx: QueryContext<Identity>,
  args: z.output<ArgsSchema>,
) => Result | Promise<Result>;

/**
 * What `query()` takes.
 *
 * @example
 * const options = { name: 'balance', args: z.object({ key: z.string() }), handler } as const;
 */
export interface QueryOptions<
  Name extends string,
  ArgsSchema extends Schema,
  Result,
  Identity,
  Public extends boolean = boolean,
> {
  /** Unique among an app's queries. Letters, digits, `-`, `_` and `.`; starts with a letter. */
  readonly name: Name;
  /** The schema of the arguments a subscriber passes. */
  readonly args: ArgsSchema;
  readonly handler: QueryHandler<ArgsSchema, Result, Identity>;
  /**
   * Whether clients may subscribe to it over a WebSocket. A query that is not public is refused
   * at every door (FORBIDDEN); in-process code may still run it. `query()` keeps it as a literal
   * type, so `BatonClient.subscribe` and React's `useQuery` take only a query with `public: true`
   * (an internal one does not compile). @default false
   */
  readonly public?: Public;
  /**
   * For a public query: whether `caller` may subscribe with these (parsed) args; a refusal is
   * FORBIDDEN. Queries can also check `ctx.caller` themselves. @default anyone
   * @example
   * authorize: (caller) => caller.kind === 'user' && caller.identity.role === 'admin'
   */
  readonly authorize?: (caller: Caller<Identity>, args: z.output<ArgsSchema>) => boolean;
}

/**
 * A query as `query()` returns it: its options, marked `kind: 'query'`. `Public` is `true` for a
 * query declared `public: true`, `false` for one that left it out or set `false`.
 *
 * @example
 * const engine = new QueryEngine({ queries: [totalBalance], actors: [Account], store, feed });
 */
export interface QueryDefinition<
  Name extends string,
  ArgsSchema extends Schema,
  Result,
  Identity = unknown,
  Public extends boolean = boolean,
> extends QueryOptions<Name, ArgsSchema, Result, Identity, Public> {
  readonly kind: 'query';
}

/**
 * Any query, e.g. in a list of an app's queries.
 *
 * @example
 * const queries: readonly AnyQueryDefinition[] = [totalBalance, myBalance];
 */
export type AnyQueryDefinition = QueryDefinition<string, Schema, any, any>;

/**
 * Any query declared `public: true`: what a client may subscribe to (`BatonClient.subscribe`,
 * React's `useQuery`). An internal query, which every door refuses (FORBIDDEN), is none.
 *
 * @example
 * const shown: readonly AnyPublicQueryDefinition[] = [totalBalance];
 */
export type AnyPublicQueryDefinition = QueryDefinition<string, Schema, any, any, true>;

/**
 * The arguments a subscriber passes (the schema's input: defaulted fields may be left out).
 *
 * @example
 * const args: ArgsOf<typeof totalBalance> = { accounts: ['alice', 'bob'] };
 */
export type ArgsOf<Q extends AnyQueryDefinition> = z.input<Q['args']>;

/**
 * What the query resolves with.
 *
 * @example
 * let total: ResultOf<typeof totalBalance>; // number
 */
export type ResultOf<Q extends AnyQueryDefinition> =
  Q extends QueryDefinition<string, Schema, infer R, any> ? Awaited<R> : never;

/**
 * The identity type a query expects in `ctx.identity`.
 *
 * @example
 * const identity: IdentityOf<typeof myBalance> = { userId: 'alice' };
 */
export type IdentityOf<Q extends AnyQueryDefinition> =
  Q extends QueryDefinition<string, Schema, any, infer I> ? I : never;

const NAME = /^[A-Za-z][A-Za-z0-9_.-]*$/;

/**
 * Defines a query. Annotate `ctx` as `QueryContext<YourIdentity>` to type `ctx.identity`.
 *
 * @example
 * const totalBalance = query({
 *   name: 'totalBalance',
 *   public: true, // clients may subscribe
 *   args: z.object({ accounts: z.array(z.string()) }),
 *   handler: async (ctx, { accounts }) => {
 *     const states = await Promise.all(accounts.map((key) => ctx.get(Account.ref(key))));
 *     return states.reduce((sum, s) => sum + s.balance, 0);
 *   },
 * });
 */
export function query<
  const Name extends string,
  ArgsSchema extends Schema,
  Result,
  Identity = unknown,
  Public extends boolean = false,
>(
  options: QueryOptions<Name, ArgsSchema, Result, Identity, Public>,
): QueryDefinition<Name, ArgsSchema, Result, Identity, Public> {
  if (typeof options?.name !== 'string' || !NAME.test(options.name)) {
    throw invalidArgument(
      `query name ${JSON.stringify(options?.name)} is not valid: use a letter followed by letters, digits, "-", "_" or "."`,
    );
  }
  const long = nameTooLong(options.name);
  if (long) {
    throw invalidArgument(`query name "${options.name.slice(0, 40)}…" is too long: ${long}`);
  }
  if (typeof options.args?.safeParse !== 'function') {
    throw invalidArgument(`query "${options.name}" needs a zod schema as args, e.g. z.object({})`);
  }
  if (typeof options.handler !== 'function') {
    throw invalidArgument(`query "${options.name}" needs a handler: async (ctx, args) => result`);
  }
  if (options.public !== undefined && typeof options.public !== 'boolean') {
    throw invalidArgument(`query "${options.name}": public must be true or false`);
  }
  if (
    options.authorize !== undefined &&
    (typeof options.authorize !== 'function' || options.public !== true)
  ) {
    throw invalidArgument(
      `query "${options.name}": authorize must be a function (caller, args) => boolean, on a public query (add public: true)`,
    );
  }
  return { ...options, kind: 'query' };
}
