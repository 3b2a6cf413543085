/**
 * The order-fulfilment example under `baton dev`, in headless Chromium: the page watches an
 * order advance step by step (stock held, the charge retried after the payment service fails,
 * the wait for the warehouse, shipped), and a SIGKILL of the app process right after an order's
 * turn commits changes nothing in the end: each order holds its stock once and is charged once.
 * The payment service runs here, over HTTP on loopback, and counts every call it gets. The
 * inspector lists the orders by status, shows one order's timeline and cancels it (a refund, and
 * the stock back), signals an order on and terminates another (no refund, the stock kept). An
 * order the server refuses is shown on the page, not dropped.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type DevProcess,
  freePort,
  inspectorAction,
  postJson,
  ROOT,
  startDevProcess,
} from '../dev/devProcess.ts';
import { launchChromium } from './launchChromium.ts';

/**
 * A payment service that fails the first call of each key (503) and charges each key once;
 * `hold()` makes the next successful charge wait until it is released.
 */
function paymentService() {
  const calls: { path: string; key: string }[] = [];
  const charges = new Map<string, { id: string; orderId: string }>();
  const refunds = new Map<string, string>();
  let held: { promise: Promise<void>; release: () => void } | undefined;
  const server: Server = createServer(async (request, response) => {
    let body = '';
    for await (const chunk of request) body += chunk;
    const { key, orderId, chargeKey } = JSON.parse(body);
    const first = !calls.some((c) => c.key === key);
    calls.push({ path: request.url!, key });
    if (first) {
      response.writeHead(503).end('a fake outage: try again');
      return;
    }
    const reply = (value: unknown) =>
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    if (request.url === '/refund') {
      const charged = charges.get(chargeKey)?.id ?? null;
      if (charged && !refunds.has(key)) refunds.set(key, charged);
      reply({ refunded: charged });
      return;
    }
    if (held) await held.promise;
    let charge = charges.get(key);
    if (!charge) {
      charge = { id: `ch-${charges.size + 1}`, orderId };
      charges.set(key, charge);
    }
    reply({ ...charge, amount: 0 });
  });
  return {
    server,
    calls,
    charges,
    refunds,
    hold() {
      let release!: () => void;
      const promise = new Promise<void>((resolve) => (release = resolve));
      held = {
        promise,
        release: () => {
          held = undefined;
          release();
        },
      };
      return held.release;
    },
    chargesOf: (orderId: string) => [...charges.values()].filter((c) => c.orderId === orderId),
  };
}

let dataDir: string;
let payments: ReturnType<typeof paymentService>;
let dev: DevProcess;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  payments = paymentService();
  await new Promise<void>((resolve) => payments.server.listen(0, '127.0.0.1', resolve));
  const paymentsUrl = `http://127.0.0.1:${(payments.server.address() as AddressInfo).port}`;
  dataDir = mkdtempSync(join(tmpdir(), 'baton-orders-'));
  const entry = join(ROOT, 'examples/orders/src/app.ts');
  dev = await startDevProcess([entry, '--port', String(await freePort()), '--data-dir', dataDir], {
    env: { ORDERS_PAYMENTS_URL: paymentsUrl },
  });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(`${dev.origin}/`);
}, 40_000);

afterAll(async () => {
  await browser?.close();
  await dev?.stop('SIGKILL');
  payments?.server.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const restarts = () => dev.output().match(/ended \(SIGKILL\); restarting it/g)?.length ?? 0;
const text = (testId: string) => page.getByTestId(testId).textContent();
/** The order's steps as the page lists them: `<mark><label>[<attempts>]` per line. */
const steps = (id: string) =>
  page
    .getByTestId(`steps-${id}`)
    .locator('li')
    .allTextContents()
    .then((lines) => lines.join(' | '));
/** Sends through the HTTP ingress, as an outside system would (the example signs nobody in). */
let sends = 0;
const send = (to: string, name: string, payload: unknown) =>
  postJson(`${dev.origin}/send`, { to, name, payload, idempotencyKey: `test-${++sends}` });

describe('the order-fulfilment page under baton dev, in Chromium', () => {
  it('watches an order advance step by step: held, charged after a retry, waiting, shipped', async () => {
    await expect.poll(() => text('connection')).toBe('open');
    expect((await send('inventory/kettle', 'restock', { qty: 10 })).status).toBe(202);
    await expect.poll(() => text('stock-kettle')).toBe('10');

    // The charge's first call fails; its retry is held until the page has shown the wait.
    const release = payments.hold();
    await page.getByLabel('quantity').fill('2');
    await page.getByRole('button', { name: 'order', exact: true }).click();
    const card = page.locator('[data-testid^="order-order-"]').first();
    await card.waitFor({ timeout: 10_000 });
    const id = (await card.getAttribute('data-testid'))!.slice('order-'.length);

    await expect.poll(() => steps(id), { timeout: 10_000 }).toBe('✓inventory.reserve | …charge');
    await expect.poll(() => text(`status-${id}`)).toBe('running');
    await expect.poll(() => text(`stage-${id}`)).toBe('charging');
    await expect.poll(() => text('stock-kettle')).toBe('8');
    release();
    await expect
      .poll(() => steps(id), { timeout: 10_000 })
      .toBe('✓inventory.reserve | ✓charge2 attempts | …wait for shipped');
    await expect.poll(() => text(`status-${id}`)).toBe('waiting');
    await expect.poll(() => text(`stage-${id}`)).toBe('awaiting shipment');

    await page.getByTestId(`order-${id}`).getByRole('button', { name: 'ship' }).click();
    await expect.poll(() => text(`status-${id}`)).toBe('completed');
    await expect
      .poll(() => steps(id))
      .toBe('✓inventory.reserve | ✓charge2 attempts | ✓wait for shipped | ✓inventory.shipped');
    expect(await text(`outcome-${id}`)).toBe(`shipped: T-${id}, charge ch-1`);
    expect(payments.chargesOf(id)).toHaveLength(1);
  });

  it('changes nothing in the end when the app process is SIGKILLed right after an order’s turns commit', async () => {
    // Killed right after the stock's turn commits the hold: before its reply leaves the outbox
    // and before its message is acknowledged, so both come again after the restart.
    expect((await inspectorAction(dev.inspector, 'crash', { message: 'reserve' })).status).toBe(
      202,
    );
    expect(
      (await send('wf-fulfil/crash-1', 'start', { input: { sku: 'kettle', qty: 3, amount: 75 } }))
        .status,
    ).toBe(202);
    await expect.poll(() => restarts(), { timeout: 20_000 }).toBe(1);

    await expect.poll(() => text('status-crash-1'), { timeout: 20_000 }).toBe('waiting');
    await expect.poll(() => text('connection')).toBe('open');
    // Again right after the workflow's turn commits the shipment.
    expect((await inspectorAction(dev.inspector, 'crash', { message: 'signal' })).status).toBe(202);
    await page.getByTestId('order-crash-1').getByRole('button', { name: 'ship' }).click();
    await expect.poll(() => restarts(), { timeout: 20_000 }).toBe(2);
    await expect.poll(() => text('status-crash-1'), { timeout: 10_000 }).toBe('completed');
    expect(await steps('crash-1')).toBe(
      '✓inventory.reserve | ✓charge2 attempts | ✓wait for shipped | ✓inventory.shipped',
    );

    // Each order held its stock once and was charged once; nothing was refunded.
    await expect.poll(() => text('stock-kettle')).toBe('5');
    expect(payments.chargesOf('crash-1')).toHaveLength(1);
    expect(payments.charges.size).toBe(2);
    expect(payments.refunds.size).toBe(0);
    // Every call to the payment service carried one of the two orders' charge keys.
    expect(new Set(payments.calls.map((c) => c.key)).size).toBe(2);
  });

  it('shows the orders in the inspector by status with one order’s step timeline, and cancels a waiting one there', async () => {
    expect(
      (await send('wf-fulfil/inspect-1', 'start', { input: { sku: 'kettle', qty: 1, amount: 25 } }))
        .status,
    ).toBe(202);
    await expect.poll(() => text('status-inspect-1'), { timeout: 20_000 }).toBe('waiting');
    const inspector = await browser.newPage({ viewport: { width: 1280, height: 1400 } });
    await inspector.goto(`${dev.inspector}/_baton`);
    const see = (testId: string) => inspector.getByTestId(testId).textContent();
    await expect.poll(() => see('wf-counts')).toBe('waiting 1 · completed 2');
    await inspector.getByTestId('wf-status').selectOption('waiting');
    await expect.poll(() => inspector.locator('#workflows tbody tr').count()).toBe(1);
    await inspector.getByTestId('wf-fulfil/inspect-1').click();
    await expect
      .poll(() => see('wf-title'))
      .toBe('fulfil/inspect-1 — waiting · {"stage":"awaiting shipment"}');
    await expect.poll(() => see('wf-step-1')).toMatch(/^1call inventory\.reservedone/);
    expect(await see('wf-step-2')).toMatch(/^2step chargedone2/);
    expect(await see('wf-step-3')).toMatch(/^3event shippedpending/);

    await inspector.getByRole('button', { name: 'cancel', exact: true }).click();
    await expect.poll(() => see('wf-result')).toBe('cancel: accepted');
    // The charge's compensation refunds it; the order ends cancelled, on the shop's page too.
    await expect.poll(() => text('status-inspect-1'), { timeout: 20_000 }).toBe('cancelled');
    await inspector.getByTestId('wf-status').selectOption('cancelled');
    await expect
      .poll(() => see('wf-title'))
      .toMatch(/^fulfil\/inspect-1 — cancelled \(CANCELLED: /);
    await expect.poll(() => see('wf-timeline')).toContain('compensate chargedone');
    // The reservation's compensation gives the stock back to the inventory, once.
    expect(await see('wf-timeline')).toContain('call inventory.releasedone');
    await expect.poll(() => text('stock-kettle')).toBe('5');
    expect([...payments.refunds.values()]).toEqual([payments.chargesOf('inspect-1')[0]!.id]);
    await inspector.close();
  });

  it('signals a waiting order on from the inspector, and terminates another without its compensations', async () => {
    for (const id of ['signal-1', 'stop-1']) {
      const input = { sku: 'kettle', qty: 1, amount: 25 };
      expect((await send(`wf-fulfil/${id}`, 'start', { input })).status).toBe(202);
      await expect.poll(() => text(`status-${id}`), { timeout: 20_000 }).toBe('waiting');
    }
    await expect.poll(() => text('stock-kettle')).toBe('3');
    const inspector = await browser.newPage({ viewport: { width: 1280, height: 1400 } });
    await inspector.goto(`${dev.inspector}/_baton`);
    const see = (testId: string) => inspector.getByTestId(testId).textContent();

    await inspector.getByTestId('wf-fulfil/signal-1').click();
    await expect
      .poll(() => see('wf-title'))
      .toBe('fulfil/signal-1 — waiting · {"stage":"awaiting shipment"}');
    await inspector.locator('#wf-event').fill('shipped');
    await inspector.locator('#wf-payload').fill('{"tracking":"T-inspector"}');
    await inspector.getByRole('button', { name: 'signal', exact: true }).click();
    await expect.poll(() => see('wf-result')).toBe('signal: accepted');
    await expect.poll(() => text('status-signal-1'), { timeout: 20_000 }).toBe('completed');
    expect(await text('outcome-signal-1')).toContain('shipped: T-inspector');

    await inspector.getByTestId('wf-fulfil/stop-1').click();
    await expect
      .poll(() => see('wf-title'))
      .toBe('fulfil/stop-1 — waiting · {"stage":"awaiting shipment"}');
    await inspector.getByRole('button', { name: 'terminate', exact: true }).click();
    await expect.poll(() => see('wf-result')).toBe('terminate: accepted');
    await expect.poll(() => text('status-stop-1'), { timeout: 20_000 }).toBe('terminated');
    // Terminated at once: no refund and the stock stays held, unlike a cancel.
    expect(payments.chargesOf('stop-1')).toHaveLength(1);
    expect(payments.refunds.size).toBe(1);
    expect(await text('stock-kettle')).toBe('3');
    await inspector.close();
  });

  it('shows a refused order on the page, and clears it once a send goes through', async () => {
    // The form asks for 1 or more; without that check, the server refuses the order's input.
    await page.getByLabel('quantity').evaluate((input) => input.removeAttribute('min'));
    await page.getByLabel('quantity').fill('0');
    await page.getByRole('button', { name: 'order', exact: true }).click();
    await expect
      .poll(() => text('refused'))
      .toMatch(/^invalid payload for wf-fulfil\/order-.* "start": payload.input.qty: /);
    await page.getByTestId('stock-kettle').locator('xpath=..').getByRole('button').click();
    await expect.poll(() => page.getByTestId('refused').count()).toBe(0);
    await expect.poll(() => text('stock-kettle')).toBe('8');
  });
});
