/**
 * Who may call what: the one rule every door applies (the WebSocket hosts, the HTTP ingress,
 * a `Client` speaking for a caller). Trusted callers (actors, timers, the system) may send any
 * message; every other caller only a public handler whose `authorize` lets it, and subscribe
 * only to a public query whose `authorize` lets it. A refusal is FORBIDDEN and names only what
 * the caller may use, so an outsider learns nothing of internal handlers.
 */

import { WORKFLOW_TYPE_PREFIX } from './actor.ts';
import { type Caller, isTrusted } from './caller.ts';
import { BatonError, ErrorCode, isBatonError } from './errors.ts';
import type { AnyQueryDefinition } from './query.ts';
import type { AnyHandler, Registry, ResolvedMessage } from './registry.ts';
import { parseActorId } from './shared/actorId.ts';
import { clip } from './shared/clip.ts';
import { TOKEN_GUARDED } from './shared/tokenGuarded.ts';

/** A handler clients may send to, or a query they may subscribe to, that a refusal may name. */
function listed(item: { readonly public?: boolean } | undefined): boolean {
  return item?.public === true && !(item as { [TOKEN_GUARDED]?: true })[TOKEN_GUARDED];
}

/**
 * The names of the queries of `queries` that a refusal names to a client: the public ones, but
 * one guarded by a token in its args ({@link TOKEN_GUARDED}: `baton dev`'s inspector's).
 *
 * @example
 * throw unknownQuery(name, listedQueries(queries));
 */
export function listedQueries(queries: Iterable<AnyQueryDefinition>): string[] {
  return [...queries].filter(listed).map((definition) => definition.name);
}

/**
 * Resolves a message as {@link Registry.resolve} does, for `caller`: throws FORBIDDEN unless
 * the caller is trusted or the handler is public and its `authorize` (given the parsed payload)
 * lets the caller through. `hint` ends the refusal's message (what to do instead).
 *
 * @example
 * const resolved = authorizeMessage(registry, callerOf(identity), 'account/alice', 'deposit', { amount: 5 });
 */
export function authorizeMessage(
  registry: Registry,
  caller: Caller,
  to: string,
  name: string,
  payload: unknown,
  hint?: string,
): ResolvedMessage {
  if (isTrusted(caller)) return registry.resolve(to, name, payload);
  const parsed = typeof to === 'string' ? parseActorId(to) : undefined;
  // A malformed id says nothing of the app: the registry's INVALID_REF is fine.
  if (!parsed) return registry.resolve(to, name, payload);
  const handlers = registry.types.includes(parsed.type)
    ? (registry.definition(parsed.type).handlers as Record<string, AnyHandler>)
    : {};
  const handler = Object.hasOwn(handlers, name) ? handlers[name] : undefined;
  // The hint (to trusted code that forgot to say so) fits a handler the app has only.
  if (handler?.public !== true) throw notOpen(registry, parsed.type, name, handler && hint);
  const resolved = resolveGuarded(registry, handler, parsed.type, to, name, payload);
  if (handler.authorize && !allows(() => handler.authorize!(caller, refOf(to), resolved.payload))) {
    // The hint goes to trusted code that sent as nobody by default (a test's Client, say).
    throw forbidden(
      `not allowed: this caller may not send "${name}" to ${to}${hint ? `; ${hint}` : ''}`,
      { to, name },
    );
  }
  return resolved;
}

/**
 * {@link Registry.resolve}, but a token-guarded handler (a workflow's `callback`) of a type that
 * takes nothing else from clients is refused as an unknown type is, whatever is wrong with its
 * payload: a payload error would tell an outsider that the type, an internal workflow, exists.
 */
function resolveGuarded(
  registry: Registry,
  handler: AnyHandler,
  type: string,
  to: string,
  name: string,
  payload: unknown,
): ResolvedMessage {
  try {
    return registry.resolve(to, name, payload);
  } catch (error) {
    const guarded = (handler as { [TOKEN_GUARDED]?: true })[TOKEN_GUARDED];
    throw guarded && !isOpenType(registry, type) ? notOpen(registry, type, name) : error;
  }
}

/**
 * The actor types clients may send to: those with a public handler other than a token-guarded
 * one, so that a workflow no client may start is not named.
 */
function publicTypes(registry: Registry): string[] {
  return registry.types.filter((type) =>
    Object.values(registry.definition(type).handlers as Record<string, AnyHandler>).some(listed),
  );
}

/**
 * Throws FORBIDDEN unless `query` may be subscribed by `caller` with these (parsed) args: it is
 * public and its `authorize` lets the caller through. Trusted callers may use any query.
 *
 * @example
 * authorizeQuery(balances, callerOf(identity), { accounts: ['alice'] });
 */
export function authorizeQuery(
  definition: AnyQueryDefinition,
  caller: Caller,
  args: unknown,
): void {
  if (isTrusted(caller)) return;
  if (definition.public !== true) throw unknownQuery(definition.name, []);
  if (definition.authorize && !allows(() => definition.authorize!(caller, args))) {
    throw forbidden(
      `not allowed: this caller may not subscribe to "${definition.name}" with these args` +
        (WORKFLOW_QUERIES.has(definition.name) ? `; ${READ_WORKFLOW}` : ''),
      { query: definition.name },
    );
  }
}

/** The built-in queries of workflows (`workflowQueries.ts`). */
const WORKFLOW_QUERIES: ReadonlySet<string> = new Set(['workflowStatus', 'workflowHistory']);

/**
 * What a refusal of a workflow's start, signal or read tells the caller of the rule, the same
 * for a workflow that exists or not: the refusal tells an outsider nothing of internal ones.
 */
export const READ_WORKFLOW =
  'a client starts, signals and reads only a workflow declared with public: true, whose authorize lets it';

/**
 * The FORBIDDEN error for a query an outside caller asked for that is unknown or not public,
 * naming only the public ones.
 *
 * @example
 * throw unknownQuery('adminView', ['balances']);
 */
export function unknownQuery(name: string, publicNames: readonly string[]): BatonError {
  return forbidden(
    `no public query "${clip(name)}"` +
      (publicNames.length > 0 ? ` (clients may subscribe to: ${publicNames.join(', ')})` : '') +
      ": one clients subscribe to is among the app's queries, with public: true" +
      (WORKFLOW_QUERIES.has(name) ? ` (${READ_WORKFLOW})` : ''),
    { query: clip(name) },
  );
}

/** An `authorize` that throws refuses, as one that returns anything but `true`. */
function allows(check: () => unknown): boolean {
  try {
    return check() === true;
  } catch (error) {
    // A BatonError an app throws on purpose (e.g. INVALID_ARGUMENT) is the client's to see.
    if (isBatonError(error) && error.code !== ErrorCode.RETRYABLE) throw error;
    return false;
  }
}

/**
 * The refusal of handler `name` of `type` to a caller outside the app, as if it were not public:
 * a type clients may send nothing to reads as one that does not exist, so a refusal tells an
 * outsider nothing of internal types; the types that take messages from clients are named, for
 * a misspelt one. Also the refusal of a token-guarded handler given a token of nothing (see
 * `checkCallbackToken`).
 */
export function notOpen(registry: Registry, type: string, name: string, hint?: string): BatonError {
  const handlers = registry.types.includes(type)
    ? (registry.definition(type).handlers as Record<string, AnyHandler>)
    : {};
  const open = Object.keys(handlers).filter((n) => listed(handlers[n]));
  const reason =
    open.length > 0
      ? `actor type "${type}" has no public handler "${clip(name)}" (clients may send: ${open.join(', ')})`
      : `no actor type "${clip(type)}" takes messages from clients (types that do: ${publicTypes(registry).join(', ') || 'none'}): one clients send to is among the app's actors, with a public handler`;
  const workflow = type.startsWith(WORKFLOW_TYPE_PREFIX) ? READ_WORKFLOW : undefined;
  const hints = [hint, workflow].filter(Boolean).join('; ');
  return forbidden(reason + (hints ? `; ${hints}` : ''), { type: clip(type), name: clip(name) });
}

/** Whether clients may send `type` anything but token-guarded messages. */
export function isOpenType(registry: Registry, type: string): boolean {
  if (!registry.types.includes(type)) return false;
  const handlers = registry.definition(type).handlers as Record<string, AnyHandler>;
  return Object.values(handlers).some(listed);
}

function forbidden(message: string, details: Record<string, unknown>): BatonError {
  return new BatonError(ErrorCode.FORBIDDEN, message, { details });
}

function refOf(id: string): { type: string; key: string; id: string } {
  const { type, key } = parseActorId(id)!;
  return { type, key, id };
}
