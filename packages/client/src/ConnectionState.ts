/**
 * Where a {@link BatonClient}'s WebSocket stands:
 * - `connecting`: the first connection is being opened;
 * - `open`: connected; subscriptions and sends flow;
 * - `reconnecting`: the connection dropped (or is being renewed) and the client is waiting for
 *   its backoff or opening a new one; subscriptions keep their last data meanwhile;
 * - `closed`: `client.close()` was called, or the server refused or expired a token given as a
 *   string (close code 4401 or 4440; every query then shows an `UNAUTHENTICATED` error): nothing
 *   reconnects.
 *
 * @example
 * client.subscribeConnectionState((state) => {
 *   banner.hidden = state === 'open';
 * });
 */
export type ConnectionState = 'connecting' | 'open' | 'reconnecting' | 'closed';
