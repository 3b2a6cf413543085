/**
 * 4. Reactive propagation (DESIGN "Budgets": ≤ 1.2x a hand-written push in the same process;
 * fan-out to 10,000 subscribers of one instance in one re-run).
 *
 * One writer commits deposits to one wallet (`runTurn`, the same for both sides); both sides
 * learn of the commit from the same change feed (DynamoDB Streams on the emulators, read by
 * `DynamoStreamFeed`; in-process on the embedded backend) and push the wallet's new balance
 * over a loopback WebSocket. Latency: from the start of the writer's commit (the moment its turn
 * calls `Store.commit`, the same point for both sides) to the subscriber seeing the new value.
 * Not from the commit's acknowledgement: the embedded store calls its listeners inside `commit`,
 * so by then the baseline had already read the balance and written its frame (its figure was
 * only the event loop picking up a frame already sent); on the emulators the figure includes the
 * commit's own round trip, the same on both sides, and the log prints its median.
 * - Candidate: Baton's local WebSocket host (`createLocalServer`, its QueryEngine with default
 *   options) and a `BatonClient` subscribed to a query reading the wallet.
 * - Baseline: a hand-written push — on the feed's record for the wallet, read the record
 *   (`GetItem` with the AWS SDK; the embedded store's `load`), send `{ balance }` as JSON over
 *   a `ws` socket to a plain `ws` client.
 * Fan-out: one query instance with N subscriptions over 100 sockets (N / 100 subscriptions on
 * each: the socket count is not what is measured), speaking the wire protocol directly and
 * acking every push as `BatonClient` does on the local host (`baton.v1.received`: one
 * `received` frame per read, the count of frames read); the baseline sends one JSON frame per
 * subscription over the same layout, the frames of a socket corked into one write as Baton's
 * host gathers them.
 * Figure: time from the commit's start until every subscription has the new value. The row
 * fails (ERROR) if a change took the query more than one re-run (DESIGN: one for all).
 */
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { BatonClient } from '@baton/client';
import { query, silentLogger } from '@baton/core';
import type { ChangeFeed, Commit, Queue, Store } from '@baton/core/adapter';
import { createEngine, type Engine, runTurn } from '@baton/core/engine';
import { applyPatch, type JsonValue, RECEIVED_SUBPROTOCOL } from '@baton/protocol';
import { createLocalServer } from '@baton/server/ws';
import { WebSocket, WebSocketServer } from 'ws';
import * as z from 'zod';
import { formatNs, median, type Sample } from '../measure.ts';
import type { Row } from '../report.ts';
import { ingress, Wallet } from './actors.ts';
import { comparePushes, pushRow } from './pushComparison.ts';

export const walletBalance = query({
  name: 'walletBalance',
  public: true,
  args: z.object({ wallet: z.string() }),
  handler: async (ctx, { wallet }) => (await ctx.get(Wallet.ref(wallet))).balance,
});

/** What both sides run on. */
export interface PropagationBackend {
  /** `DynamoDB Local + ElasticMQ`, `embedded`. */
  readonly label: string;
  /** The stores Baton's server reads and the writer commits through. */
  readonly store: Store;
  readonly writerStore: Store;
  readonly queue: Queue;
  readonly feed: ChangeFeed;
  /** How often its change feed polls a shard that had nothing (a stream's; none in process). */
  readonly pollMs?: number;
  /** The hand-written push's read: the wallet's balance, straight from the backend. */
  readBalance(walletId: string): Promise<number>;
}

export interface PropagationOptions {
  readonly backend: PropagationBackend;
  /** Changes per round. */
  readonly changes: number;
  readonly rounds: number;
  readonly warmup: number;
  /** Subscriptions of the one instance; 1: one BatonClient against one plain socket. */
  readonly subscribers: number;
  /**
   * DESIGN's budget for the row (Baton's time ≤ this × the baseline's), given on the emulators;
   * none when undefined (the row is for reading).
   */
  readonly budget?: number;
  /** The QueryEngine's gathering window; its default (10 ms) when undefined. */
  readonly batchMs?: number;
  readonly log: (line: string) => void;
}

const SOCKETS = 100;

export async function propagation(options: PropagationOptions): Promise<Row> {
  const { backend, changes, subscribers, log } = options;
  const runsPerChange: number[] = [];
  const commitNs: number[] = [];
  const round = (side: 'baton' | 'push') => () =>
    subscribers === 1
      ? side === 'baton'
        ? batonLatency(backend, changes, options.batchMs, commitNs)
        : pushLatency(backend, changes, 1, commitNs)
      : side === 'baton'
        ? batonFanOut(backend, changes, subscribers, runsPerChange, commitNs)
        : pushLatency(backend, changes, subscribers, commitNs);
  const compared = await comparePushes(round, options.rounds, options.warmup);
  log(
    `  ${compared.summary} from the commit's start to ` +
      `${subscribers === 1 ? 'the subscriber' : `all ${subscribers.toLocaleString('en-US')} subscriptions`}` +
      ` (${changes} changes × ${options.rounds} rounds per side)`,
  );
  log(
    `  of which the commit itself (its start to its acknowledgement, both sides): median ${formatNs(median(commitNs))}`,
  );
  if (runsPerChange.length > 0) {
    const most = Math.max(...runsPerChange);
    log(`  query re-runs per change: at most ${most} (DESIGN: one re-run for all subscribers)`);
    if (most !== 1) {
      throw new Error(
        `propagation: a change took the query ${most} re-runs for its ${subscribers} subscriptions (DESIGN: one)`,
      );
    }
  }
  const what =
    subscribers === 1
      ? 'query propagation'
      : `fan-out to ${subscribers.toLocaleString('en-US')} subscribers`;
  const window = options.batchMs === undefined ? '' : `, batchMs ${options.batchMs}`;
  // The budgeted row on the emulators (4a) waits on the stream's poll on both sides, which hides
  // the engine's cost: the rows that isolate it (4b, 4e) are for reading.
  const polled =
    subscribers === 1 && options.budget !== undefined && backend.pollMs !== undefined
      ? `, both sides waiting on the stream's ${backend.pollMs} ms poll: the engine's own cost shows in 4b/4e`
      : '';
  const row = pushRow(`${what} (${backend.label}${window})${polled}`, compared, options.budget);
  return runsPerChange.length > 0
    ? { ...row, calls: { baton: { queryRunsPerChange: Math.max(...runsPerChange) } } }
    : row;
}

/** A deposit committed: when its commit started and was acknowledged (`performance.now()`). */
interface Deposited {
  readonly startedAt: number;
  readonly ackedAt: number;
}

/**
 * A wallet and a writer that deposits to it, each deposit one turn. The clock of a change starts
 * where the turn calls `commit` on the writer's store: the embedded store feeds its listeners
 * inside that call, before it returns.
 */
async function wallet(backend: PropagationBackend) {
  const key = `w-${randomUUID().slice(0, 8)}`;
  const id = Wallet.ref(key).id;
  const writer = timedCommits(backend.writerStore);
  const engine: Engine = createEngine({
    actors: [Wallet],
    store: writer.store,
    queue: backend.queue,
    logger: silentLogger,
  });
  let n = 0;
  const deposit = async (): Promise<Deposited> => {
    n++;
    writer.reset();
    await runTurn(engine, id, [
      { envelope: ingress(`dep-${key}-${n}`, id, 'deposit', { amount: 1 }), queueSeq: String(n) },
    ]);
    const { startedAt, ackedAt, commits } = writer.last();
    if (commits !== 1) throw new Error(`propagation: a deposit made ${commits} commits, not one`);
    return { startedAt, ackedAt };
  };
  return { key, id, deposit };
}

/** `store`, its commits timed: when the last one started and when it was acknowledged. */
function timedCommits(store: Store) {
  let startedAt = Number.NaN;
  let ackedAt = Number.NaN;
  let commits = 0;
  const commit = async (commit: Commit) => {
    commits++;
    startedAt = performance.now();
    await store.commit(commit);
    ackedAt = performance.now();
  };
  const timed = new Proxy(store, {
    get(target, property) {
      if (property === 'commit') return commit;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return {
    store: timed,
    reset() {
      startedAt = Number.NaN;
      ackedAt = Number.NaN;
      commits = 0;
    },
    last: () => ({ startedAt, ackedAt, commits }),
  };
}

/** Waits for `value`; `seen` is called by the subscriber side with each value it sees. */
function waiter() {
  let want = -1;
  let resolve: ((at: number) => void) | undefined;
  return {
    expect(value: number): Promise<number> {
      want = value;
      return new Promise<number>((r) => {
        resolve = r;
      });
    },
    seen(value: unknown) {
      if (value === want && resolve) {
        const r = resolve;
        resolve = undefined;
        r(performance.now());
      }
    },
  };
}

/**
 * Commits `changes` deposits, each after the last was seen; latency from the commit's start to
 * seen. `commitNs` collects each commit's own time (its start to its acknowledgement).
 */
async function measureChanges(
  deposit: () => Promise<Deposited>,
  wait: ReturnType<typeof waiter>,
  changes: number,
  setupValue: number,
  commitNs: number[],
): Promise<Sample> {
  const latencies: number[] = [];
  let total = 0;
  for (let i = 0; i < changes; i++) {
    const seen = wait.expect(setupValue + i + 1);
    const { startedAt, ackedAt } = await deposit();
    const at = await withTimeout(seen, 30_000, 'a pushed value');
    if (!(at > startedAt)) {
      throw new Error(`propagation: value ${setupValue + i + 1} seen before its commit started`);
    }
    const ns = (at - startedAt) * 1e6;
    latencies.push(ns);
    commitNs.push((ackedAt - startedAt) * 1e6);
    total += ns;
  }
  return { ns: total, ops: changes, latencies };
}

async function batonLatency(
  backend: PropagationBackend,
  changes: number,
  batchMs: number | undefined,
  commitNs: number[],
): Promise<Sample> {
  const { key, deposit } = await wallet(backend);
  const server = await createLocalServer({
    actors: [Wallet],
    queries: [walletBalance],
    backend: { store: backend.store, queue: backend.queue, feed: backend.feed },
    logger: silentLogger,
    ...(batchMs === undefined ? {} : { engine: { batchMs } }),
  });
  const client = new BatonClient({ url: server.url, WebSocket });
  const wait = waiter();
  const stop = client.subscribe(walletBalance, { wallet: key }, (state) => {
    if (state.status === 'success') wait.seen(state.data);
  });
  try {
    const first = wait.expect(1);
    await deposit();
    await withTimeout(first, 30_000, 'the first value');
    return await measureChanges(deposit, wait, changes, 1, commitNs);
  } finally {
    stop();
    client.close();
    await server.close();
  }
}

/** The hand-written push: on the wallet's record, read it, send `{ id, balance }` per subscription. */
async function pushLatency(
  backend: PropagationBackend,
  changes: number,
  subscribers: number,
  commitNs: number[],
): Promise<Sample> {
  const { id, deposit } = await wallet(backend);
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  const url = `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`;
  const sockets = Math.min(SOCKETS, subscribers);
  const perSocket = subscribers / sockets;
  const server: WebSocket[] = [];
  wss.on('connection', (socket) => server.push(socket));
  const unsubscribe = backend.feed.subscribe((record) => {
    if (record.id !== id) return;
    void backend.readBalance(id).then((balance) => {
      for (const socket of server) {
        // A socket's frames leave in one write, as Baton's host writes them.
        const raw = rawSocket(socket);
        raw?.cork();
        for (let s = 0; s < perSocket; s++) socket.send(JSON.stringify({ id: `s${s}`, balance }));
        raw?.uncork();
      }
    });
  });
  const wait = waiter();
  const fan = fanIn(subscribers, wait);
  const clients: WebSocket[] = [];
  try {
    for (let c = 0; c < sockets; c++) {
      const client = await open(url);
      client.on('message', (data) => {
        const frame = JSON.parse(String(data)) as { id: string; balance: number };
        fan.seen(`${c}:${frame.id}`, frame.balance);
      });
      clients.push(client);
    }
    while (server.length < sockets) await new Promise((r) => setTimeout(r, 1));
    const first = wait.expect(1);
    fan.expect(1);
    await deposit();
    await withTimeout(first, 30_000, 'the first value');
    return await measureChanges(deposit, fanWaiter(fan, wait), changes, 1, commitNs);
  } finally {
    unsubscribe();
    for (const client of clients) client.close();
    await new Promise((resolve) => wss.close(resolve));
  }
}

/** Baton's fan-out: `subscribers` subscriptions of one instance, spoken in the wire protocol. */
async function batonFanOut(
  backend: PropagationBackend,
  changes: number,
  subscribers: number,
  runsPerChange: number[],
  commitNs: number[],
): Promise<Sample> {
  const { key, deposit } = await wallet(backend);
  const server = await createLocalServer({
    actors: [Wallet],
    queries: [walletBalance],
    backend: { store: backend.store, queue: backend.queue, feed: backend.feed },
    logger: silentLogger,
    // Each of the bench's sockets holds subscribers / SOCKETS subscriptions and acks every push:
    // far past the per-connection abuse limits, which are not what this measures.
    maxSubscriptions: subscribers,
    maxFramesPerSecond: 1_000_000,
  });
  const sockets = Math.min(SOCKETS, subscribers);
  const perSocket = subscribers / sockets;
  const wait = waiter();
  const fan = fanIn(subscribers, wait);
  const clients: WebSocket[] = [];
  try {
    // The first deposit before subscribing: every subscription starts from balance 1.
    await deposit();
    fan.expect(1);
    const first = wait.expect(1);
    for (let c = 0; c < sockets; c++) {
      const client = await open(server.url, [RECEIVED_SUBPROTOCOL]);
      const values = new Map<string, JsonValue>();
      const acks = receivedAcks(client);
      client.on('message', (data) => {
        acks.read();
        const frame = JSON.parse(String(data)) as {
          type: string;
          id: string;
          version: number;
          value?: JsonValue;
          ops?: Parameters<typeof applyPatch>[1];
        };
        if (frame.type === 'result') values.set(frame.id, frame.value ?? null);
        else if (frame.type === 'patch')
          values.set(frame.id, applyPatch(values.get(frame.id) ?? null, frame.ops ?? []));
        else return;
        acks.due();
        fan.seen(`${c}:${frame.id}`, values.get(frame.id));
      });
      for (let s = 0; s < perSocket; s++) {
        client.send(
          JSON.stringify({
            v: 1,
            type: 'subscribe',
            id: `s${s}`,
            query: 'walletBalance',
            args: { wallet: key },
          }),
        );
      }
      clients.push(client);
    }
    await withTimeout(first, 60_000, 'every first value');
    const counting = {
      expect: (value: number) => {
        const before = server.engine.stats().runs;
        const seen = fanWaiter(fan, wait).expect(value);
        return seen.then((at) => {
          runsPerChange.push(server.engine.stats().runs - before);
          return at;
        });
      },
      seen: wait.seen,
    };
    return await measureChanges(deposit, counting, changes, 1, commitNs);
  } finally {
    for (const client of clients) client.close();
    await server.close();
  }
}

/**
 * Acks pushes as `BatonClient` does on `baton.v1.received`: frames are counted as they are read,
 * and a read that brought a push is answered with one `received` frame once it is done.
 */
function receivedAcks(client: WebSocket) {
  let frames = 0;
  let due = false;
  const send = () => {
    due = false;
    client.send(JSON.stringify({ v: 1, type: 'received', frames }));
  };
  return {
    read() {
      frames++;
    },
    due() {
      if (due) return;
      due = true;
      process.nextTick(send);
    },
  };
}

/** The socket under a `ws` WebSocket, to gather its writes. */
function rawSocket(socket: WebSocket): { cork(): void; uncork(): void } | undefined {
  return (socket as unknown as { _socket?: { cork(): void; uncork(): void } })._socket;
}

/** Counts subscriptions that reached the expected value; tells `wait` when all have. */
function fanIn(total: number, wait: ReturnType<typeof waiter>) {
  let want = -1;
  let reached = new Set<string>();
  return {
    expect(value: number) {
      want = value;
      reached = new Set();
    },
    seen(subscription: string, value: unknown) {
      if (value !== want || reached.has(subscription)) return;
      reached.add(subscription);
      if (reached.size === total) wait.seen(want);
    },
  };
}

function fanWaiter(fan: ReturnType<typeof fanIn>, wait: ReturnType<typeof waiter>) {
  return {
    expect(value: number) {
      const seen = wait.expect(value);
      fan.expect(value);
      return seen;
    },
    seen: wait.seen,
  };
}

function open(url: string, protocols: string[] = []): Promise<WebSocket> {
  const socket = new WebSocket(url, protocols);
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve(socket));
    socket.once('error', reject);
  });
}

async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`propagation: no ${what} within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
