/**
 * The bank's live page: what to try, the balances of three accounts as one live query, forms
 * that deposit and transfer with read-your-writes (a form's "done" appears once the table shows
 * it), a refund from a closed account, a button that kills the worker mid-transfer (under
 * `baton dev`), and a live activity log. Open two windows: a transfer in one shows at once in
 * the other, and so does one sent with curl.
 */
import { BatonClient } from '@baton/client';
import type { ResultOf } from '@baton/core';
import { BatonProvider, useConnectionState, useQuery, useSend } from '@baton/react';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { Account } from '../bank.ts';
import { balances } from '../queries.ts';
import { BANK_CSS } from './style.ts';

const ACCOUNTS = ['alice', 'bob', 'carol'];
const CURL = `curl -X POST ${location.origin}/ask -H 'content-type: application/json' -d '{"to":"account/bob","name":"deposit","payload":{"amount":5}}'`;

type Rows = ResultOf<typeof balances>['rows'];
interface Entry {
  readonly id: number;
  readonly at: Date;
  readonly text: string;
  readonly tone?: 'good' | 'bad';
}
type Log = (text: string, tone?: Entry['tone']) => void;

function Balances({ log }: { log: Log }) {
  const { status, data, error } = useQuery(balances, { accounts: ACCOUNTS });
  const previous = useRef<Rows | undefined>(undefined);
  // The activity log hears of every committed change, whoever made it (this page, another
  // window, curl): the live query pushes the new balances.
  useEffect(() => {
    if (!data) return;
    const before = previous.current;
    previous.current = data.rows;
    if (!before) return;
    for (const row of data.rows) {
      const old = before.find((b) => b.account === row.account);
      if (!old) continue;
      const delta = row.balance - old.balance;
      if (delta !== 0) {
        log(`${row.account}: ${old.balance} → ${row.balance} (${delta > 0 ? '+' : ''}${delta})`);
      }
      if (row.closed && !old.closed) log(`${row.account} is now closed`);
    }
  }, [data, log]);
  if (status === 'pending') return <p>Loading…</p>;
  return (
    <>
      {error && <p role="alert">{error.message}</p>}
      <table>
        <tbody>
          {data?.rows.map((row) => (
            <tr key={row.account}>
              <th scope="row">
                {row.account} {row.closed && <span className="tag">closed</span>}
              </th>
              <td className="num" data-testid={`balance-${row.account}`}>
                {row.balance}
              </td>
            </tr>
          ))}
          <tr className="total">
            <th scope="row">total</th>
            <td className="num" data-testid="total">
              {data?.total}
            </td>
          </tr>
        </tbody>
      </table>
    </>
  );
}

function Transfer({ log }: { log: Log }) {
  const send = useSend({ visible: true });
  const [outcome, setOutcome] = useState('');
  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const from = String(form.get('from'));
    const to = String(form.get('to'));
    const amount = Number(form.get('amount'));
    const what =
      from === 'deposit' ? `deposit ${amount} into ${to}` : `transfer ${amount} ${from} → ${to}`;
    setOutcome('sending…');
    try {
      if (from === 'deposit') await send(Account.ref(to), 'deposit', { amount });
      else await send(Account.ref(from), 'transfer', { to, amount });
      setOutcome('done');
      log(`${what}: done`, 'good');
    } catch (error) {
      setOutcome(`refused: ${(error as Error).message}`);
      log(`${what}: refused (${(error as Error).message})`, 'bad');
    }
  };
  const options = ACCOUNTS.map((a) => <option key={a}>{a}</option>);
  return (
    <form onSubmit={onSubmit}>
      <select name="from" aria-label="from" defaultValue="deposit">
        <option value="deposit">deposit into</option>
        {options}
      </select>
      →
      <select name="to" aria-label="to" defaultValue="alice">
        {options}
      </select>
      <input name="amount" aria-label="amount" type="number" min="1" defaultValue="100" />
      <button type="submit">send</button> <output data-testid="outcome">{outcome}</output>
    </form>
  );
}

function Actions({ log }: { log: Log }) {
  const send = useSend({ visible: true });
  const [busy, setBusy] = useState(false);
  const closeCarol = async () => {
    try {
      await send(Account.ref('carol'), 'close', {});
      log('carol closed: money sent to carol now comes back as a refund', 'good');
    } catch (error) {
      log(`close carol: ${(error as Error).message}`, 'bad');
    }
  };
  // Asks `baton dev` to SIGKILL the app process right after it commits the next transfer —
  // before the credit leaves the outbox and before the inbox message is acknowledged.
  const crash = async () => {
    setBusy(true);
    try {
      // `baton dev` puts its token for such actions in the page it serves.
      const token = document.querySelector<HTMLMetaElement>('meta[name="baton-token"]')?.content;
      const armed = await fetch('/_baton/crash', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-baton-token': token ?? '' },
        body: JSON.stringify({ message: 'transfer' }),
      }).catch(() => undefined);
      if (!armed?.ok) {
        const reason = armed ? ((await armed.json()).error?.message ?? armed.status) : 'no answer';
        log(`crash the worker: only under baton dev with a data directory (${reason})`, 'bad');
        return;
      }
      log('worker armed: it will be SIGKILLed right after committing a transfer of 10 alice → bob');
      await send(Account.ref('alice'), 'transfer', { to: 'bob', amount: 10 });
      log(
        'the worker died mid-turn and came back: the transfer applied once, nothing lost',
        'good',
      );
    } catch (error) {
      log(`transfer during the crash: ${(error as Error).message}`, 'bad');
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="actions">
      <button type="button" className="quiet" onClick={closeCarol}>
        close carol
      </button>
      <button type="button" className="danger" onClick={crash} disabled={busy}>
        {busy ? 'crashing…' : 'crash the worker mid-transfer'}
      </button>
    </div>
  );
}

function App() {
  const connection = useConnectionState();
  const [entries, setEntries] = useState<Entry[]>([]);
  const nextId = useRef(0);
  const log = useRef<Log>((text, tone) => {
    const entry = { id: nextId.current++, at: new Date(), text, ...(tone ? { tone } : {}) };
    setEntries((list) => [entry, ...list].slice(0, 200));
  }).current;
  const lastConnection = useRef(connection);
  useEffect(() => {
    if (lastConnection.current !== connection) log(`connection ${connection}`);
    lastConnection.current = connection;
  }, [connection, log]);
  return (
    <>
      <style>{BANK_CSS}</style>
      <header>
        <h1>Baton bank</h1>
        <a href="/_baton" target="_blank" rel="noreferrer">
          inspector
        </a>
        <output className="pill" data-state={connection} data-testid="connection">
          {connection}
        </output>
      </header>
      <main>
        <div>
          <section>
            <h2>Balances, live</h2>
            <Balances log={log} />
            <Transfer log={log} />
            <Actions log={log} />
          </section>
          <section style={{ marginTop: '1.2rem' }}>
            <h2>What to try</h2>
            <ol>
              <li>
                <b>Deposit</b> 100 into alice, then <b>transfer</b> from alice to bob. Open this
                page in a second window: both follow. The total only changes with deposits.
              </li>
              <li>
                <b>Refund from a closed account</b>: close carol, then transfer to her. Carol
                refuses the credit and sends it back — alice’s balance dips and returns.
              </li>
              <li>
                <b>Crash the worker</b>: the app process is SIGKILLed right after it commits a
                transfer, before the credit is delivered. <code>baton dev</code> restarts it; the
                transfer is applied once, the credit arrives once, the total holds.
              </li>
              <li>
                From a terminal: <code>{CURL}</code>
              </li>
            </ol>
          </section>
        </div>
        <section>
          <h2>Activity</h2>
          <ul id="log" data-testid="activity">
            {entries.length === 0 && <li>Nothing yet: try something on the left.</li>}
            {entries.map((entry) => (
              <li key={entry.id}>
                <time>{entry.at.toLocaleTimeString()}</time>
                <span className={entry.tone}>{entry.text}</span>
              </li>
            ))}
          </ul>
        </section>
      </main>
    </>
  );
}

const url = document.querySelector<HTMLMetaElement>('meta[name="baton-url"]')!.content;
createRoot(document.getElementById('root')!).render(
  <BatonProvider client={new BatonClient({ url, reconnect: { minMs: 250, maxMs: 4_000 } })}>
    <App />
  </BatonProvider>,
);
