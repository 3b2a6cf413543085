/** The app's page: the counter, live, and buttons that send to it. */
import { BatonClient } from '@baton/client';
import { BatonProvider, useQuery, useSend } from '@baton/react';
import { createRoot } from 'react-dom/client';
import { Counter } from '../counter.ts';
import { count } from '../queries.ts';

function CounterView() {
  // Re-renders on every new count. A query that fails (it threw, or the server refused it)
  // sets `error` and keeps the last count: say so, or the page would wait for ever.
  const { data, error } = useQuery(count, { key: 'main' });
  const send = useSend();
  return (
    <main style={{ font: '16px system-ui, sans-serif', margin: '3rem auto', maxWidth: '30rem' }}>
      <h1>Counter</h1>
      <p>
        Count: <output id="count">{data ?? '…'}</output>
      </p>
      {error && (
        <p role="alert" style={{ color: 'crimson' }}>
          The count could not be read: {error.message}
        </p>
      )}
      <button type="button" onClick={() => send(Counter.ref('main'), 'add', { by: 1 })}>
        Add one
      </button>{' '}
      <button
        type="button"
        onClick={() => send(Counter.ref('main'), 'addLater', { by: 10, inMs: 3000 })}
      >
        Add ten in 3 s
      </button>
    </main>
  );
}

// baton dev puts the WebSocket's URL in the page; a deployed page gets its stack's WebSocketUrl.
const url = document.querySelector<HTMLMetaElement>('meta[name="baton-url"]')!.content;
createRoot(document.getElementById('root')!).render(
  <BatonProvider client={new BatonClient({ url })}>
    <CounterView />
  </BatonProvider>,
);
