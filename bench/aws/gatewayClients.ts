/**
 * The clients of one side of the gateway fan-out rows (4f, 4g), in a process of their own (see
 * `../parts.ts`): N connections with one subscription each, as N browsers. Baton's side opens N
 * `BatonClient`s subscribed to the wallet's balance; the hand-written side opens N plain `ws`
 * sockets and sends each the wallet's id. The step arms a value before each change and waits for
 * the moment every connection holds it.
 */
import { BatonClient } from '@baton/client';
import { WebSocket } from 'ws';
import { inPool, now, serve } from '../parts.ts';
import { walletBalance } from './propagation.ts';

export interface CrowdConfig {
  readonly side: 'baton' | 'push';
  /** The side's gateway. */
  readonly url: string;
  /** Connections, one subscription each. */
  readonly count: number;
  /** Connections opening at once: a gateway's listen backlog would refuse thousands at once. */
  readonly opening: number;
  readonly walletKey: string;
  readonly walletId: string;
}

let seen: Subscribers | undefined;
let reaching: Promise<number> | undefined;

const methods = {
  /** Opens the connections; resolves once each is subscribed (Baton's: once it has a value). */
  async open(config: CrowdConfig): Promise<void> {
    const subscribers = new Subscribers(config.count);
    seen = subscribers;
    await inPool([...Array(config.count).keys()], config.opening, async (i) => {
      if (config.side === 'baton') {
        const client = new BatonClient({ url: config.url, WebSocket });
        await new Promise<void>((resolve) => {
          client.subscribe(walletBalance, { wallet: config.walletKey }, (state) => {
            if (state.status !== 'success') return;
            subscribers.saw(i, state.data as number);
            resolve();
          });
        });
        return;
      }
      const socket = new WebSocket(config.url);
      socket.on('message', (data) => {
        subscribers.saw(i, (JSON.parse(String(data)) as { balance: number }).balance);
      });
      await new Promise<void>((resolve, reject) => {
        socket.once('open', () => resolve());
        socket.once('error', reject);
      });
      socket.send(JSON.stringify({ wallet: config.walletId }));
    });
  },
  /** The next value every connection is to reach: call before the change that makes it. */
  arm(value: number, timeoutMs: number): void {
    reaching = seen!.expect(value, timeoutMs);
    reaching.catch(() => {}); // reported by `reached`
  },
  /** When every connection held the armed value (`performance.timeOrigin` + `now()`, in ms). */
  reached: (): Promise<number> => reaching!,
};

export type CrowdMethods = typeof methods;

serve(methods);

/** The newest value each connection saw; `expect` resolves once all hold one value. */
class Subscribers {
  readonly #latest: number[];
  #want = Number.NaN;
  #reached = 0;
  #resolve: ((at: number) => void) | undefined;

  constructor(count: number) {
    this.#latest = new Array<number>(count).fill(Number.NaN);
  }

  saw(index: number, value: number): void {
    const was = this.#latest[index];
    this.#latest[index] = value;
    if (value !== this.#want || was === this.#want) return;
    if (++this.#reached === this.#latest.length) this.#resolve?.(now());
  }

  /** Resolves with the time when every connection holds `value`. */
  expect(value: number, timeoutMs: number): Promise<number> {
    this.#want = value;
    this.#reached = this.#latest.filter((held) => held === value).length;
    return new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => {
        const missing = this.#latest.length - this.#reached;
        reject(new Error(`gateway fan-out: ${missing} connections never saw ${value}`));
      }, timeoutMs);
      this.#resolve = (at) => {
        clearTimeout(timer);
        this.#resolve = undefined;
        resolve(at);
      };
      if (this.#reached === this.#latest.length) this.#resolve(now());
    });
  }
}
