import type { BatonClient } from '@baton/client';
import { type ReactNode, useEffect, useState } from 'react';
import { BatonContext } from './BatonContext.ts';

/**
 * Props of {@link BatonProvider}.
 *
 * @example
 * const props: BatonProviderProps = { client, children: <App /> };
 */
export interface BatonProviderProps {
  /**
   * One client per app: created outside React, or — in a server-rendered app (Next.js, Remix) —
   * a function that creates it, which the provider calls once mounted in the browser (never on
   * the server, where there is no connection to make), closing that client on unmount.
   */
  readonly client: BatonClient | (() => BatonClient);
  /** What renders until the client made by a `client` function exists. @default null */
  readonly fallback?: ReactNode;
  readonly children?: ReactNode;
}

/**
 * Makes a {@link BatonClient} available to the hooks below it.
 *
 * @example
 * const client = new BatonClient({ url: 'wss://api.example.com/live', token: getToken });
 * createRoot(root).render(
 *   <BatonProvider client={client}>
 *     <App />
 *   </BatonProvider>,
 * );
 */
export function BatonProvider({ client, fallback = null, children }: BatonProviderProps) {
  const created = useClientOnMount(typeof client === 'function' ? client : undefined);
  const value = typeof client === 'function' ? created : client;
  if (value === undefined) return fallback;
  return <BatonContext.Provider value={value}>{children}</BatonContext.Provider>;
}

/** The client `create` makes once mounted (effects run in the browser only), closed on unmount. */
function useClientOnMount(create: (() => BatonClient) | undefined): BatonClient | undefined {
  const [client, setClient] = useState<BatonClient>();
  const creates = create !== undefined;
  // One client per mount: an inline function, new at every render, must not make another.
  // biome-ignore lint/correctness/useExhaustiveDependencies: keyed on whether there is a function
  useEffect(() => {
    if (create === undefined) return;
    const made = create();
    setClient(made);
    return () => made.close();
  }, [creates]);
  return client;
}
