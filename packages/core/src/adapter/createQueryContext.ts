import type { ActorRef } from '../actor.ts';
import { type Caller, callerOf } from '../caller.ts';
import { QUERY_PAGES, type ReadPages } from '../contextSlots.ts';
import { BatonError, ErrorCode } from '../errors.ts';
import type { QueryContext } from '../query.ts';

/**
 * What a server supplies to build a {@link QueryContext}.
 *
 * @example
 * const options: QueryContextOptions<undefined> = { identity: undefined, get: (ref) => load(ref) };
 */
export interface QueryContextOptions<Identity> {
  readonly identity: Identity;
  /** Who subscribed. @default derived from `identity`: a user, or anonymous without one */
  readonly caller?: Caller<Identity>;
  /** Reads an actor's committed state, recording the read as a dependency. */
  readonly get: (ref: ActorRef) => Promise<unknown>;
  /** Reads pages of an actor's state (a workflow's older history), when the store can. */
  readonly readPages?: ReadPages;
}

const WHY = {
  now: 'clocks make results change without a commit',
  random: 'random numbers make results non-deterministic',
  uuid: 'random ids make results non-deterministic',
  send: 'queries are read-only',
} as const;

const WHERE = {
  now: 'pass the time as an argument, or keep it in actor state',
  random: 'draw it in an actor handler and keep it in state',
  uuid: 'draw it in an actor handler and keep it in state',
  send: 'send from a client or an actor handler',
} as const;

function unavailable(name: keyof typeof WHY): () => never {
  return () => {
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      `queries are read-only and deterministic: ctx.${name} is not available in a query (${WHY[name]}); ${WHERE[name]}`,
      { details: { method: name } },
    );
  };
}

const NOW = unavailable('now');
const RANDOM = unavailable('random');
const UUID = unavailable('uuid');
const SEND = unavailable('send');

/**
 * Builds the context a query handler runs with: `get` and `identity` from the server, and
 * `now`, `random`, `uuid` and `send` that throw a BatonError (INVALID_ARGUMENT) explaining why.
 *
 * @example
 * const ctx = createQueryContext({ identity: { userId: 'u1' }, get: (ref) => readState(ref) });
 * const result = await totalBalance.handler(ctx, { accounts: ['alice'] });
 */
export function createQueryContext<Identity>(
  options: QueryContextOptions<Identity>,
): QueryContext<Identity> {
  const { get, identity } = options;
  const ctx: QueryContext<Identity> = {
    get: (ref) => get(ref) as Promise<never>,
    identity,
    caller: options.caller ?? callerOf(identity),
    now: NOW,
    random: RANDOM,
    uuid: UUID,
    send: SEND,
  };
  if (options.readPages) Object.defineProperty(ctx, QUERY_PAGES, { value: options.readPages });
  return ctx;
}
