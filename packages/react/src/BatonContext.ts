import type { BatonClient } from '@baton/client';
import { createContext } from 'react';

/**
 * The React context holding the {@link BatonClient}; set it with `<BatonProvider>`.
 *
 * @example
 * const client = useContext(BatonContext); // undefined outside a <BatonProvider>
 */
export const BatonContext = createContext<BatonClient | undefined>(undefined);
