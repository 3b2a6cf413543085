/**
 * The bank's live page: sign in with a demo token, then your balance as a live query (an admin
 * sees every account), forms that deposit and transfer with read-your-writes (a form's "done"
 * appears once the table shows it), a refund from a closed account, a button that kills the
 * worker mid-transfer (under `baton dev`), and a live activity log. Open two windows: a transfer
 * in one shows at once in the other, and so does one sent with curl.
 */
import { BatonClient } from '@baton/client';
import type { ResultOf } from '@baton/core';
import { BatonProvider, useConnectionState, useQuery, useSend } from '@baton/react';
import { type FormEvent, type ReactNode, useEffect, useRef, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { Account } from '../bank.ts';
import { balances } from '../queries.ts';
import { ConfirmLink, type Me, SignIn, signedIn, signOut, takeLinkUser } from './signIn.tsx';
import { BANK_CSS } from './style.ts';

const ACCOUNTS = ['alice', 'bob', 'carol'];
/**
 * Where `baton dev` serves the inspector: a port of its own, which it names in the page it serves
 * (a page elsewhere has no inspector to link to).
 */
const INSPECTOR_URL = document.querySelector<HTMLMetaElement>(
  'meta[name="baton-inspector"]',
)?.content;

type Rows = ResultOf<typeof balances>['rows'];
interface Entry {
  readonly id: number;
  readonly at: Date;
  readonly text: string;
  readonly tone?: 'good' | 'bad';
}
type Log = (text: string, tone?: Entry['tone']) => void;

function Balances({ log, me }: { log: Log; me: Me }) {
  // A customer may read only their own account; an admin, every one.
  const accounts = me.admin ? ACCOUNTS : [me.userId];
  const { status, data, error } = useQuery(balances, { accounts });
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

function Transfer({ log, me }: { log: Log; me: Me }) {
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
  // Money moves out of one's own account only (the server refuses anything else).
  const sources = (me.admin ? ACCOUNTS : [me.userId]).map((a) => <option key={a}>{a}</option>);
  return (
    <form onSubmit={onSubmit}>
      <select name="from" aria-label="from" defaultValue="deposit">
        <option value="deposit">deposit into</option>
        {sources}
      </select>
      →
      <select name="to" aria-label="to" defaultValue={me.userId}>
        {options}
      </select>
      <input name="amount" aria-label="amount" type="number" min="1" defaultValue="100" />
      <button type="submit">send</button> <output data-testid="outcome">{outcome}</output>
    </form>
  );
}

function Actions({ log, me }: { log: Log; me: Me }) {
  const send = useSend({ visible: true });
  const [busy, setBusy] = useState(false);
  const other = me.userId === 'bob' ? 'alice' : 'bob';
  const closeMine = async () => {
    try {
      await send(Account.ref(me.userId), 'close', {});
      log(`${me.userId} closed: money sent to ${me.userId} now comes back as a refund`, 'good');
    } catch (error) {
      log(`close ${me.userId}: ${(error as Error).message}`, 'bad');
    }
  };
  // Asks `baton dev` to SIGKILL the app process right after it commits the next transfer —
  // before the credit leaves the outbox and before the inbox message is acknowledged.
  const crash = async () => {
    setBusy(true);
    try {
      // `baton dev` puts a token in the page it serves that arms a crash and does nothing else.
      const token = document.querySelector<HTMLMetaElement>(
        'meta[name="baton-crash-token"]',
      )?.content;
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
      log(
        `worker armed: it will be SIGKILLed right after committing a transfer of 10 ${me.userId} → ${other}`,
      );
      await send(Account.ref(me.userId), 'transfer', { to: other, amount: 10 });
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
      <button type="button" className="quiet" onClick={closeMine}>
        close my account
      </button>
      <button type="button" className="danger" onClick={crash} disabled={busy}>
        {busy ? 'crashing…' : 'crash the worker mid-transfer'}
      </button>
    </div>
  );
}

function App({ me }: { me: Me }) {
  const connection = useConnectionState();
  const curl = `curl -X POST ${location.origin}/ask -H 'content-type: application/json' -H 'authorization: Bearer ${me.token}' -d '{"to":"account/${me.userId}","name":"deposit","payload":{"amount":5}}'`;
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
        {INSPECTOR_URL ? (
          <a href={INSPECTOR_URL} target="_blank" rel="noreferrer">
            inspector
          </a>
        ) : null}
        <span data-testid="me">
          {me.userId}
          {me.admin ? ' (admin)' : ''}
        </span>
        <button type="button" className="quiet" onClick={signOut}>
          sign out
        </button>
        <output className="pill" data-state={connection} data-testid="connection">
          {connection}
        </output>
      </header>
      {/* The client closes for good once the server refuses or expires the token. */}
      {connection === 'closed' && (
        <p role="status" data-testid="signed-out">
          Your sign-in was refused or has expired.{' '}
          <button type="button" onClick={signOut}>
            sign in again
          </button>
        </p>
      )}
      <main>
        <div>
          <section>
            <h2>Balances, live</h2>
            <Balances log={log} me={me} />
            <Transfer log={log} me={me} />
            <Actions log={log} me={me} />
          </section>
          <section style={{ marginTop: '1.2rem' }}>
            <h2>What to try</h2>
            <ol>
              <li>
                <b>Deposit</b> 100 into your account, then <b>transfer</b> to bob. Sign in as bob in
                a second window (or as <code>teller</code>, an admin who sees every account): both
                follow. Try to move someone else’s money: the server refuses.
              </li>
              <li>
                <b>Refund from a closed account</b>: as carol, close your account; then transfer to
                her. Carol refuses the credit and sends it back — your balance dips and returns.
              </li>
              <li>
                <b>Crash the worker</b>: the app process is SIGKILLed right after it commits a
                transfer, before the credit is delivered. <code>baton dev</code> restarts it; the
                transfer is applied once, the credit arrives once, the total holds.
              </li>
              <li>
                From a terminal: <code>{curl}</code>
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
const link = takeLinkUser();
// A sign-in link opened over this page changes only the fragment: load it afresh to ask.
addEventListener('hashchange', () => location.hash.includes('token=') && location.reload());
const me = signedIn();
const root = createRoot(document.getElementById('root')!);
const signedOutPage = (body: ReactNode) => (
  <>
    <style>{BANK_CSS}</style>
    <header>
      <h1>Baton bank</h1>
    </header>
    {body}
  </>
);
if (link && link.token !== me?.token) {
  root.render(signedOutPage(<ConfirmLink link={link} current={me} />));
} else if (!me) {
  root.render(signedOutPage(<SignIn />));
} else {
  root.render(
    <BatonProvider
      client={new BatonClient({ url, token: me.token, reconnect: { minMs: 250, maxMs: 4_000 } })}
    >
      <App me={me} />
    </BatonProvider>,
  );
}
