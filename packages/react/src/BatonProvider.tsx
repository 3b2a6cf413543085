import type { BatonClient } from '@baton/client';
import type { ReactNode } from 'react';
import { BatonContext } from './BatonContext.ts';

/**
 * Props of {@link BatonProvider}.
 *
 * @example
 * const props: BatonProviderProps = { client, children: <App /> };
 */
export interface BatonProviderProps {
  /** One client per app (create it outside React, or once in a `useState` initializer). */
  readonly client: BatonClient;
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
export function BatonProvider({ client, children }: BatonProviderProps) {
  return <BatonContext.Provider value={client}>{children}</BatonContext.Provider>;
}
