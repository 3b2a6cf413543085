/**
 * The React hooks in a real browser: headless Debian Chromium (driven by playwright-core) opens
 * a page bundled from tests/browser/page, connected to Baton's local WebSocket server over the
 * embedded backend. Another client writes; the page's live views must follow — also after its
 * socket is cut — while a view the server refuses shows its error alone — and a workflow view
 * shows each step of an instance as it commits.
 */
import { performance } from 'node:perf_hooks';
import { BatonClient } from '@baton/client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { launchChromium } from './launchChromium.ts';
import { Account, Laundry } from './page/model.ts';
import { type BrowserApp, startBrowserApp } from './startBrowserApp.ts';

interface SocketLog {
  readonly sent: string[];
  readonly received: string[];
}

let app: BrowserApp;
let browser: Browser;
let page: Page;
let other: BatonClient;
const sockets: SocketLog[] = [];
/** When each balance of alice was committed (ms since the epoch, sub-millisecond). */
const commitTimes = new Map<number, number>();

beforeAll(async () => {
  app = await startBrowserApp();
  app.runtime.backend.feed.subscribe((record) => {
    if (record.id === 'account/alice') {
      commitTimes.set((record.state as { balance: number }).balance, now());
    }
  });
  browser = await launchChromium();
  page = await browser.newPage();
  page.on('websocket', (socket) => {
    const log: SocketLog = { sent: [], received: [] };
    sockets.push(log);
    socket.on('framesent', ({ payload }) => log.sent.push(String(payload)));
    socket.on('framereceived', ({ payload }) => log.received.push(String(payload)));
  });
  await page.goto(app.pageUrl('alice'));
  // Another client, straight to the Baton server (not through the page's cuttable pipe).
  other = new BatonClient({ url: app.server.url, token: 'bob', WebSocket });
}, 30_000);

afterAll(async () => {
  other?.close();
  await browser?.close();
  await app?.close();
});

function now(): number {
  return performance.timeOrigin + performance.now();
}

/** Waits until the element with `testId` shows exactly `text`. */
async function see(testId: string, text: string): Promise<void> {
  const exact = new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
  await page.getByTestId(testId).filter({ hasText: exact }).waitFor({ timeout: 10_000 });
}

async function renders(testId: string): Promise<number> {
  return Number(await page.getByTestId(testId).getAttribute('data-renders'));
}

describe('React hooks in Chromium', () => {
  it('shows live views, one shared subscription per (query, args), and follows another client’s send', async () => {
    await see('connection', 'open');
    await see('alice-1', 'success:0');
    await see('alice-2', 'success:0');
    await see('bob', 'success:0');
    await see('skipped', 'pending');
    // Two components on balance({ alice }): one subscription. Four distinct (query, args).
    const pageConnection = app.server
      .connections()
      .find((c) => (c.identity as any)?.user === 'alice');
    expect(pageConnection?.subscriptions).toBe(4);

    await other.send(Account.ref('alice'), 'deposit', { amount: 5 });
    await see('alice-1', 'success:5');
    await see('alice-2', 'success:5');

    // A change to bob's balance re-renders bob's view only: alice's state keeps its reference.
    const aliceRenders = await renders('alice-1');
    await app.runtime.client.send(Account.ref('bob'), 'deposit', { amount: 2 });
    await see('bob', 'success:2');
    expect(await renders('alice-1')).toBe(aliceRenders);
  });

  it('shows a refused query’s error while the other views keep working', async () => {
    await see('private-bob', 'error:REJECTED:');
    await expect(page.getByTestId('private-bob').getAttribute('title')).resolves.toBe(
      "alice may not see bob's balance",
    );
    await see('private-alice', 'success:5');
    await other.send(Account.ref('alice'), 'deposit', { amount: 3 });
    await see('alice-1', 'success:8');
    await see('private-alice', 'success:8');
    await see('private-bob', 'error:REJECTED:');
  });

  it('resolves useSend({ visible: true }) only once the page shows the write, and answers useAsk', async () => {
    await page.getByTestId('deposit-visible').click();
    await see('seen-after-visible', 'visible:success:9');
    await page.getByTestId('ask').click();
    await see('ask-reply', 'reply:9');
  });

  it('survives the server dropping its socket: reconnects, resumes, and updates again', async () => {
    const before = sockets.length;
    expect(app.dropSockets()).toBeGreaterThanOrEqual(1);
    await see('connection', 'reconnecting');
    await see('alice-1', 'success:9'); // the last data stays while disconnected
    await see('connection', 'open');

    // The new socket resumed every subscription from the version and hash it held.
    const resumed = sockets.at(-1)!;
    expect(sockets.length).toBe(before + 1);
    await expect
      .poll(() => resumed.received.filter((f) => f.includes('"type":"unchanged"')).length)
      .toBe(3); // alice, bob, private-alice: unchanged; private-bob: refused again
    const subscribes = resumed.sent.map((f) => JSON.parse(f)).filter((f) => f.type === 'subscribe');
    expect(subscribes).toHaveLength(4);
    expect(subscribes.filter((f) => f.resume !== undefined)).toHaveLength(3);

    await other.send(Account.ref('alice'), 'deposit', { amount: 1 });
    await see('alice-1', 'success:10');
    await see('alice-2', 'success:10');
    await see('private-alice', 'success:10');
    await see('private-bob', 'error:REJECTED:');
  });

  it('measures commit-to-browser latency over 50 sends', async () => {
    const sendToDom: number[] = [];
    const commitToDom: number[] = [];
    let expected = 10;
    for (let i = 0; i < 50; i++) {
      expected += 1;
      await page.evaluate(
        ([id, text]) => window.__arm(id!, text!),
        ['alice-1', `success:${expected}`],
      );
      const sentAt = now();
      await other.send(Account.ref('alice'), 'deposit', { amount: 1 });
      const shownAt = await page.evaluate(() => window.__armed);
      sendToDom.push(shownAt - sentAt);
      commitToDom.push(shownAt - commitTimes.get(expected)!);
    }
    const summary = (samples: number[]) => {
      const sorted = [...samples].sort((a, b) => a - b);
      const at = (q: number) =>
        sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
      return `median ${at(0.5).toFixed(1)} ms, p99 ${at(0.99).toFixed(1)} ms`;
    };
    console.log(
      `[browser] send → DOM (50 samples, WebSocket client → server → commit → page): ${summary(sendToDom)}`,
    );
    console.log(
      `[browser] commit → DOM (50 samples, includes the engine's 10 ms batch): ${summary(commitToDom)}`,
    );
    expect(sendToDom).toHaveLength(50);
    await see('alice-1', `success:${expected}`);
  });

  it('useWorkflow shows an instance step by step as each commits, then its output', async () => {
    await page.getByTestId('follow-laundry').click();
    await see('laundry', 'new||');
    const ref = await app.runtime.client.start(Laundry, 'monday', { basket: 'shirts' });
    // The wash commits with the wait for the event: the instance waits, the page shows both.
    await see('laundry', 'waiting|wash:done,dried:pending|');
    await app.runtime.client.signal(ref, 'dried', {});
    await see('laundry', 'completed|wash:done,dried:done,fold:done|shirts');
  });
});
