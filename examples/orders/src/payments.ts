/**
 * The payment service the order workflow charges: outside Baton, so the workflow calls it in a
 * step (at least once) and passes the step's idempotency key, which the service uses to charge
 * each key once. Two implementations: an in-memory fake that fails some calls (the default),
 * and a client of a payment service over HTTP (`ORDERS_PAYMENTS_URL`, as the browser test runs).
 */

/** A charge the service made. */
export interface Charge {
  readonly id: string;
  readonly orderId: string;
  readonly amount: number;
}

export interface PaymentService {
  /** Charges `amount` for `orderId`, once per `key`: the same key again returns the same charge. */
  charge(request: { key: string; orderId: string; amount: number }): Promise<Charge>;
  /**
   * Refunds the charge made under `chargeKey`, once per `key`; `refunded` is its id, `null` when
   * that key charged nothing (an attempt that failed before it charged).
   */
  refund(request: { key: string; chargeKey: string }): Promise<{ refunded: string | null }>;
}

/** An in-memory payment service that fails a call now and then, and what it did. */
export interface FakePayments extends PaymentService {
  /** Each charge made, by key. */
  readonly charges: ReadonlyMap<string, Charge>;
  /** Each refund made, by key. */
  readonly refunds: ReadonlyMap<string, string>;
  /** Calls in all, failed ones included. */
  readonly calls: number;
}

/**
 * @param fails Whether the call numbered `n` (from 1) fails, as a flaky network would.
 *   @default one call in three, at random
 * @example
 * const payments = fakePayments({ fails: (n) => n % 2 === 1 }); // every other call fails
 */
export function fakePayments(options: { fails?: (n: number) => boolean } = {}): FakePayments {
  const fails = options.fails ?? (() => Math.random() < 1 / 3);
  const charges = new Map<string, Charge>();
  const refunds = new Map<string, string>();
  let calls = 0;
  const flaky = () => {
    calls += 1;
    if (fails(calls)) throw new Error('payment service unavailable (a fake outage): try again');
  };
  return {
    charges,
    refunds,
    get calls() {
      return calls;
    },
    async charge({ key, orderId, amount }) {
      flaky();
      let charge = charges.get(key);
      if (!charge) {
        charge = { id: `ch-${charges.size + 1}`, orderId, amount };
        charges.set(key, charge);
      }
      return charge;
    },
    async refund({ key, chargeKey }) {
      flaky();
      const charge = charges.get(chargeKey);
      if (!charge) return { refunded: null };
      if (!refunds.has(key)) refunds.set(key, charge.id);
      return { refunded: charge.id };
    },
  };
}

/** A payment service over HTTP: `POST <url>/charge` and `POST <url>/refund` with JSON. */
export function httpPayments(url: string): PaymentService {
  const post = async <T>(path: string, body: unknown): Promise<T> => {
    const response = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!response.ok)
      throw new Error(`payment service: ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  };
  return {
    charge: (request) => post('/charge', request),
    refund: (request) => post('/refund', request),
  };
}

let current: PaymentService | undefined;

/** The service the workflow charges: the one `setPayments` gave, else from the environment. */
export function payments(): PaymentService {
  if (!current) {
    const url = globalThis.process?.env?.ORDERS_PAYMENTS_URL;
    current = url ? httpPayments(url) : fakePayments();
  }
  return current;
}

/** Makes the workflow charge `service` (tests pass a fake whose calls they count). */
export function setPayments(service: PaymentService): void {
  current = service;
}
