/** A live view with the React hook, type-checked against the installed types. */
import { useQuery } from '@baton/react';
import { total } from './bank.js';

export function Total({ accounts }: { accounts: string[] }) {
  const state = useQuery(total, { accounts });
  if (state.status === 'error') return <p>{state.error.message}</p>;
  return <p>{state.status === 'success' ? state.data.toFixed(0) : '…'}</p>;
}
