import type { ConnectionState } from '@baton/client';
import { useCallback, useSyncExternalStore } from 'react';
import { useBatonClient } from './useBatonClient.ts';

/**
 * The client's connection state — `connecting`, `open`, `reconnecting` or `closed` (after
 * `client.close()`, or once the server refused or expired a token given as a string) —
 * re-rendering when it changes.
 *
 * @example
 * function OfflineBanner() {
 *   const state = useConnectionState();
 *   return state === 'reconnecting' ? <p role="status">Reconnecting…</p> : null;
 * }
 */
export function useConnectionState(): ConnectionState {
  const client = useBatonClient();
  const subscribe = useCallback(
    (onChange: () => void) => client.subscribeConnectionState(onChange),
    [client],
  );
  const get = () => client.connectionState;
  return useSyncExternalStore(subscribe, get, serverSnapshot);
}

/** What the server renders, and hydration first renders: the server holds no connection. */
function serverSnapshot(): ConnectionState {
  return 'connecting';
}
