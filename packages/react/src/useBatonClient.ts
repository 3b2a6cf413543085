import type { BatonClient } from '@baton/client';
import { BatonError, ErrorCode } from '@baton/core';
import { useContext } from 'react';
import { BatonContext } from './BatonContext.ts';

/**
 * The {@link BatonClient} of the nearest `<BatonProvider>`; throws outside one.
 *
 * @example
 * const client = useBatonClient();
 * useEffect(() => client.subscribeConnectionState(console.log), [client]);
 */
export function useBatonClient(): BatonClient {
  const client = useContext(BatonContext);
  if (client === undefined) {
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      'no Baton client here: wrap your app in <BatonProvider client={client}>',
    );
  }
  return client;
}
