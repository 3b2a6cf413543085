/**
 * The page the browser test opens: live balances through `useQuery`, a view the server refuses,
 * read-your-writes through `useSend({ visible: true })`, an ask, the connection state, and (once
 * its button is clicked, so the views above keep their subscription count) a workflow's progress.
 * The WebSocket URL and token come from the page's query string (`?ws=…&token=…`).
 */
import { BatonClient, type QueryState } from '@baton/client';
import {
  BatonProvider,
  useAsk,
  useConnectionState,
  useQuery,
  useSend,
  useWorkflow,
} from '@baton/react';
import { useRef, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { Account, balance, Laundry, privateBalance } from './model.ts';

const params = new URLSearchParams(location.search);
/** The provider makes the client once mounted, as a server-rendered app has it do. */
const createClient = () =>
  new BatonClient({
    url: params.get('ws') ?? `ws://${location.host}/baton`,
    token: params.get('token') ?? undefined,
  });

/** `pending`, `success:<data>` or `error:<code>:<last data>`: what the test reads. */
function show(state: QueryState<number>): string {
  if (state.status === 'pending') return 'pending';
  if (state.status === 'success') return `success:${state.data}`;
  return `error:${state.error.code}:${state.data ?? ''}`;
}

/** A live balance; `data-renders` counts its renders (stable references keep it still). */
function Balance({ account, testId }: { account: string; testId: string }) {
  const state = useQuery(balance, { account });
  const renders = useRef(0);
  renders.current += 1;
  return (
    <output data-testid={testId} data-renders={renders.current} title={state.error?.message}>
      {show(state)}
    </output>
  );
}

function PrivateBalance({ account }: { account: string }) {
  const state = useQuery(privateBalance, { account });
  return (
    <output data-testid={`private-${account}`} title={state.error?.message}>
      {show(state)}
    </output>
  );
}

function Skipped() {
  return <output data-testid="skipped">{show(useQuery(balance, 'skip'))}</output>;
}

/** Deposits 1 and, once the write is visible, copies what the alice view shows at that moment. */
function DepositVisible() {
  const send = useSend({ visible: true });
  const [seen, setSeen] = useState('');
  const onClick = async () => {
    setSeen('sending');
    await send(Account.ref('alice'), 'deposit', { amount: 1 });
    const view = document.querySelector('[data-testid="alice-1"]');
    setSeen(`visible:${view?.textContent ?? ''}`);
  };
  return (
    <p>
      <button type="button" data-testid="deposit-visible" onClick={onClick}>
        deposit 1 (visible)
      </button>
      <output data-testid="seen-after-visible">{seen}</output>
    </p>
  );
}

function AskBalance() {
  const ask = useAsk();
  const [reply, setReply] = useState('');
  const onClick = () =>
    ask(Account.ref('alice'), 'balance', {}).then(
      (value) => setReply(`reply:${value}`),
      (error: { code: string }) => setReply(`error:${error.code}`),
    );
  return (
    <p>
      <button type="button" data-testid="ask" onClick={onClick}>
        ask alice
      </button>
      <output data-testid="ask-reply">{reply}</output>
    </p>
  );
}

/** `<status>|<command>:<state>,…|<output>`: the laundry instance as `useWorkflow` shows it. */
function LaundryProgress() {
  const { data, error } = useWorkflow(Laundry.ref('monday'));
  if (!data)
    return <output data-testid="laundry">{error ? `error:${error.code}` : 'pending'}</output>;
  const steps = data.history.map((entry) => `${entry.name}:${entry.state}`).join(',');
  const output = data.output ? data.output.folded : '';
  return <output data-testid="laundry">{`${data.status}|${steps}|${output}`}</output>;
}

function FollowLaundry() {
  const [shown, setShown] = useState(false);
  return (
    <p>
      <button type="button" data-testid="follow-laundry" onClick={() => setShown(true)}>
        follow the laundry
      </button>
      {shown && <LaundryProgress />}
    </p>
  );
}

function Connection() {
  return <output data-testid="connection">{useConnectionState()}</output>;
}

function App() {
  return (
    <main>
      <Connection />
      <Balance account="alice" testId="alice-1" />
      <Balance account="alice" testId="alice-2" />
      <Balance account="bob" testId="bob" />
      <PrivateBalance account="alice" />
      <PrivateBalance account="bob" />
      <Skipped />
      <DepositVisible />
      <AskBalance />
      <FollowLaundry />
    </main>
  );
}

/**
 * For latency samples: `arm(testId, text)` starts watching the DOM, `armed` resolves with the
 * time (ms since the epoch, sub-millisecond) at which that element first shows `text`.
 */
function arm(testId: string, text: string): void {
  window.__armed = new Promise((resolve) => {
    const check = () => {
      if (document.querySelector(`[data-testid="${testId}"]`)?.textContent !== text) return;
      observer.disconnect();
      resolve(performance.timeOrigin + performance.now());
    };
    const observer = new MutationObserver(check);
    observer.observe(document.body, { childList: true, characterData: true, subtree: true });
    check();
  });
}

declare global {
  interface Window {
    __arm: typeof arm;
    __armed: Promise<number>;
  }
}

window.__arm = arm;
createRoot(document.getElementById('root')!).render(
  <BatonProvider client={createClient}>
    <App />
  </BatonProvider>,
);
