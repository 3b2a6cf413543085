import { authExpired, authLapsed } from '@baton/server/session';
import { Pusher } from './Pusher.ts';
import { type ReactiveOptions, resolveReactiveOptions } from './WebSocketOptions.ts';

/**
 * A scheduled Lambda (e.g. every minute) that collects connections whose lease lapsed (no
 * `ping` within `leaseMs`) or whose identity ended (`validUntil`, told so in an `error` frame): it
 * closes each through `DeleteConnection` and removes it, its subscriptions and the instances left
 * unused. Returns how many it removed. Pushes skip such
 * connections already; this frees what they hold. It scans the connections table.
 *
 * @example
 * export const handler = connectionSweeper({
 *   actors: [Account],
 *   queries: [balance],
 *   store,
 *   dynamodb,
 *   connectionsTable: process.env.CONNECTIONS_TABLE!,
 * });
 */
export function connectionSweeper(
  options: ReactiveOptions,
): (event?: unknown) => Promise<{ removed: number }> {
  const context = resolveReactiveOptions(options);
  return async () => {
    const now = context.clock.now();
    const expired = await context.registry.connections.expired(now);
    const pusher = new Pusher(context.pushes);
    for (const { connectionId, validUntil } of expired) {
      // One whose identity ended is told so: its client connects again with a fresh token.
      if (authLapsed(validUntil, now)) {
        await pusher.closeWith(connectionId, authExpired(validUntil!));
      } else {
        await pusher.disconnect(connectionId);
      }
    }
    if (expired.length > 0) {
      context.logger.info('expired connections removed', { removed: expired.length });
    }
    return { removed: expired.length };
  };
}
