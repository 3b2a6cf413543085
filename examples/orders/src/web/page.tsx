/**
 * The shop's live page: stock levels, a form that places an order (starts a `Fulfil` workflow),
 * and every order with its steps as they commit — `useWorkflow` over the WebSocket, no polling.
 * A waiting order has a "ship" button standing in for the warehouse. Open two windows: an order
 * placed or shipped in one advances in the other, and so does one started with curl.
 */
import { BatonClient } from '@baton/client';
import type { WorkflowHistoryEntry } from '@baton/core';
import { BatonProvider, useConnectionState, useQuery, useSend, useWorkflow } from '@baton/react';
import { createContext, type FormEvent, useCallback, useContext, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { Fulfil } from '../fulfil.ts';
import { Inventory, orderList, PRODUCTS, stockLevels } from '../inventory.ts';
import { SHOP_CSS } from './style.ts';

/** The commands worth showing: not the recorded clock reads and random numbers. */
const SHOWN = new Set(['step', 'call', 'sleep', 'event', 'callback', 'child', 'compensate']);
const MARK = { pending: '…', done: '✓', failed: '✗', cancelled: '–' } as const;

function label(entry: WorkflowHistoryEntry): string {
  if (entry.kind === 'event') return `wait for ${entry.name}`;
  if (entry.kind === 'compensate') return `undo ${entry.name}`;
  return entry.name;
}

/**
 * Where the page's sends report how they ended: a refusal (an invalid order, a rate limit) is
 * shown at the top of the page, not dropped; the next send that goes through clears it. (A send
 * made while the connection is down waits for it and goes out on reconnect.)
 */
const Report = createContext<(sending: Promise<unknown>) => void>(() => {});

function Stock() {
  const { data } = useQuery(stockLevels, {});
  const send = useSend({ visible: true });
  const report = useContext(Report);
  return (
    <section>
      <h2>Stock</h2>
      <table>
        <tbody>
          {PRODUCTS.map((sku) => (
            <tr key={sku}>
              <td>{sku}</td>
              <td className="num" data-testid={`stock-${sku}`}>
                {data?.[sku] ?? '…'}
              </td>
              <td>
                <button
                  type="button"
                  className="quiet"
                  onClick={() => report(send(Inventory.ref(sku), 'restock', { qty: 5 }))}
                >
                  +5
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function PlaceOrder() {
  const send = useSend();
  const report = useContext(Report);
  const [sku, setSku] = useState<string>(PRODUCTS[0]);
  const [qty, setQty] = useState(1);
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const id = `order-${crypto.randomUUID().slice(0, 8)}`;
    report(send(Fulfil.ref(id), 'start', { input: { sku, qty, amount: 25 * qty } }));
  };
  return (
    <section>
      <h2>Place an order</h2>
      <form onSubmit={onSubmit}>
        <select aria-label="product" value={sku} onChange={(e) => setSku(e.target.value)}>
          {PRODUCTS.map((p) => (
            <option key={p}>{p}</option>
          ))}
        </select>
        <input
          aria-label="quantity"
          type="number"
          min={1}
          value={qty}
          onChange={(e) => setQty(Number(e.target.value))}
        />
        <button type="submit">order</button>
      </form>
    </section>
  );
}

/** One order, live: its status, each step as it commits, the outcome. */
function Order({ id }: { id: string }) {
  const ref = Fulfil.ref(id);
  const { data, error } = useWorkflow(ref);
  const send = useSend();
  const report = useContext(Report);
  if (!data) return <li>{error ? error.message : '…'}</li>;
  const steps = data.history.filter((e) => SHOWN.has(e.kind));
  return (
    <section data-testid={`order-${id}`}>
      <h3>
        {id}
        <span className="status" data-status={data.status} data-testid={`status-${id}`}>
          {data.status}
        </span>
        {/* Typed by the workflow's progress schema; kept once it ends (the stage it failed at). */}
        {data.status !== 'completed' && data.progress && (
          <small className="stage" data-testid={`stage-${id}`}>
            {data.progress.stage}
          </small>
        )}
        {data.status === 'waiting' && (
          <button
            type="button"
            className="quiet"
            onClick={() =>
              report(send(ref, 'signal', { name: 'shipped', payload: { tracking: `T-${id}` } }))
            }
          >
            ship
          </button>
        )}
      </h3>
      <ol className="steps" data-testid={`steps-${id}`}>
        {steps.map((entry) => (
          <li key={entry.seq} className={entry.state} data-state={entry.state}>
            <span>{MARK[entry.state]}</span>
            <span>{label(entry)}</span>
            <small>
              {entry.attempts && entry.attempts > 1 ? `${entry.attempts} attempts` : ''}
            </small>
          </li>
        ))}
      </ol>
      <p className="outcome" data-testid={`outcome-${id}`}>
        {data.output
          ? `shipped: ${data.output.tracking}, charge ${data.output.charge}`
          : (data.error?.message ?? '')}
      </p>
    </section>
  );
}

function Orders() {
  const { data } = useQuery(orderList, {});
  return (
    <div>
      {data?.length === 0 && <section>No orders yet.</section>}
      {[...(data ?? [])].reverse().map((id) => (
        <Order key={id} id={id} />
      ))}
    </div>
  );
}

function App() {
  const connection = useConnectionState();
  const [refused, setRefused] = useState('');
  const report = useCallback(
    (sending: Promise<unknown>) =>
      sending.then(
        () => setRefused(''),
        (failure) => setRefused(failure instanceof Error ? failure.message : String(failure)),
      ),
    [],
  );
  return (
    <Report.Provider value={report}>
      <style>{SHOP_CSS}</style>
      <header>
        <h1>Order fulfilment</h1>
        <span className="pill" data-state={connection} data-testid="connection">
          {connection}
        </span>
      </header>
      {refused && (
        <p className="error" role="alert" data-testid="refused">
          {refused}
        </p>
      )}
      <main>
        <div>
          <PlaceOrder />
          <Stock />
        </div>
        <Orders />
      </main>
    </Report.Provider>
  );
}

const url = document.querySelector<HTMLMetaElement>('meta[name="baton-url"]')!.content;
createRoot(document.getElementById('root')!).render(
  <BatonProvider client={new BatonClient({ url, reconnect: { minMs: 250, maxMs: 4_000 } })}>
    <App />
  </BatonProvider>,
);
