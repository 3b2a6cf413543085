/**
 * The bank's live page: the balances of three accounts as one live query, and forms that
 * deposit and transfer with read-your-writes — a form's "done" appears once the table shows it.
 * Open two windows: a transfer in one shows at once in the other.
 */
import { BatonClient } from '@baton/client';
import { BatonProvider, useConnectionState, useQuery, useSend } from '@baton/react';
import { type FormEvent, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { Account } from '../bank.ts';
import { balances } from '../queries.ts';

const ACCOUNTS = ['alice', 'bob', 'carol'];

function Balances() {
  const { status, data, error } = useQuery(balances, { accounts: ACCOUNTS });
  if (status === 'pending') return <p>Loading…</p>;
  return (
    <>
      {error && <p role="alert">{error.message}</p>}
      <table>
        <tbody>
          {data?.rows.map((row) => (
            <tr key={row.account}>
              <th scope="row">{row.account}</th>
              <td data-testid={`balance-${row.account}`}>{row.balance}</td>
              <td>{row.closed ? 'closed' : ''}</td>
            </tr>
          ))}
          <tr>
            <th scope="row">total</th>
            <td data-testid="total">{data?.total}</td>
          </tr>
        </tbody>
      </table>
    </>
  );
}

function Transfer() {
  const send = useSend({ visible: true });
  const [outcome, setOutcome] = useState('');
  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const from = String(form.get('from'));
    const to = String(form.get('to'));
    const amount = Number(form.get('amount'));
    setOutcome('sending…');
    try {
      if (from === 'deposit') await send(Account.ref(to), 'deposit', { amount });
      else await send(Account.ref(from), 'transfer', { to, amount });
      setOutcome('done');
    } catch (error) {
      setOutcome(`refused: ${(error as Error).message}`);
    }
  };
  const options = ACCOUNTS.map((a) => <option key={a}>{a}</option>);
  return (
    <form onSubmit={onSubmit}>
      <select name="from" aria-label="from" defaultValue="deposit">
        <option value="deposit">deposit into</option>
        {options}
      </select>{' '}
      →{' '}
      <select name="to" aria-label="to" defaultValue="bob">
        {options}
      </select>{' '}
      <input name="amount" aria-label="amount" type="number" min="1" defaultValue="10" />{' '}
      <button type="submit">send</button> <output data-testid="outcome">{outcome}</output>
    </form>
  );
}

function App() {
  return (
    <main>
      <h1>Baton bank</h1>
      <p>
        connection: <output data-testid="connection">{useConnectionState()}</output>
      </p>
      <Balances />
      <Transfer />
    </main>
  );
}

const url = document.querySelector<HTMLMetaElement>('meta[name="baton-url"]')!.content;
createRoot(document.getElementById('root')!).render(
  <BatonProvider client={new BatonClient({ url })}>
    <App />
  </BatonProvider>,
);
