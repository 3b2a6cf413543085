/**
 * The bank example under `baton dev`, in headless Chromium, signed in as alice: money moved
 * with curl-style HTTP (signed in with a bearer token) shows in the open page and its activity
 * log; a refund from a closed account; the "crash the worker" button SIGKILLs the app process
 * mid-transfer, and nothing is lost: the transfer is applied once and the total holds.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoToken } from '../../examples/bank/src/demoAuth.ts';
import { type DevProcess, freePort, ROOT, startDevProcess } from '../dev/devProcess.ts';
import { launchChromium } from './launchChromium.ts';

let dataDir: string;
let dev: DevProcess;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'baton-bank-'));
  const entry = join(ROOT, 'examples/bank/src/app.ts');
  dev = await startDevProcess([entry, '--port', String(await freePort()), '--data-dir', dataDir]);
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  // The sign-in link asks first, naming the account.
  await page.goto(`${dev.origin}/#token=${token('alice')}`);
  await page.getByRole('button', { name: 'sign in as alice' }).click();
}, 40_000);

afterAll(async () => {
  await browser?.close();
  await dev?.stop('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

const cell = (id: string) => page.getByTestId(id).textContent();
const activity = () => page.getByTestId('activity').textContent();
const token = (userId: string) => demoToken({ userId, role: 'customer' });
/** An HTTP ask signed in as the owner of the account it goes to. */
async function ask(to: string, name: string, payload: unknown) {
  const response = await fetch(`${dev.origin}/ask`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token(to)}` },
    body: JSON.stringify({ to: `account/${to}`, name, payload }),
  });
  return { status: response.status, body: await response.json() };
}

describe('the bank page under baton dev, in Chromium', () => {
  it('shows money moved with HTTP, live, in its table and its activity log', async () => {
    await expect.poll(() => cell('connection')).toBe('open');
    await expect.poll(() => cell('total')).toBe('0');
    expect(await ask('alice', 'deposit', { amount: 100 })).toEqual({
      status: 200,
      body: { value: 100 },
    });
    // A live query pushes only its newest result: wait for the deposit to show before the
    // transfer, or the page may go from 0 to 70 in one push and never log the transfer.
    await expect.poll(() => cell('balance-alice')).toBe('100');
    expect((await ask('alice', 'transfer', { to: 'bob', amount: 30 })).status).toBe(200);
    await expect.poll(() => cell('balance-alice')).toBe('70');
    await expect.poll(activity).toContain('alice: 100 → 70 (-30)');
    expect((await ask('bob', 'balance', {})).body).toEqual({ value: 30 });
    // Alice sees only her own account.
    expect(await page.getByTestId('balance-bob').count()).toBe(0);
  });

  it('refunds a transfer to a closed account', async () => {
    expect((await ask('carol', 'close', {})).status).toBe(200);
    await page.getByLabel('from').selectOption('alice');
    await page.getByLabel('to').selectOption('carol');
    await page.getByLabel('amount').fill('20');
    await page.getByRole('button', { name: 'send', exact: true }).click();
    await expect.poll(() => cell('outcome')).toBe('done');
    // Alice's 20 leaves, carol refuses it, and it comes back.
    await expect.poll(activity).toContain('alice: 70 → 50 (-20)');
    await expect.poll(() => cell('balance-alice')).toBe('70');
    expect((await ask('carol', 'balance', {})).body).toEqual({ value: 0 });
  });

  it('crashes the worker mid-transfer: nothing is lost and the total holds', async () => {
    await page.getByRole('button', { name: 'crash the worker mid-transfer' }).click();
    await expect
      .poll(activity, { timeout: 20_000 })
      .toContain('the worker died mid-turn and came back: the transfer applied once');
    expect(dev.output()).toMatch(/ended \(SIGKILL\); restarting it/);
    await expect.poll(() => cell('connection')).toBe('open');
    await expect.poll(() => cell('balance-alice')).toBe('60');
    // The server agrees: the transfer was applied once, its credit delivered once.
    expect((await ask('bob', 'balance', {})).body).toEqual({ value: 40 });
    expect((await ask('alice', 'balance', {})).body).toEqual({ value: 60 });
    await page.screenshot({ path: join(tmpdir(), 'baton-dev-bank.png'), fullPage: true });
  });

  it("keeps the inspector's token from a script on the app's page, which holds a crash token only", async () => {
    const read = await page.evaluate(async () => {
      const response = await fetch('/_baton');
      return { status: response.status, text: await response.text() };
    });
    expect(read.status).not.toBe(200);
    expect(read.text).not.toContain('baton-token');
    const crashToken = await page.locator('meta[name="baton-crash-token"]').getAttribute('content');
    expect(crashToken).toMatch(/.{20}/);
    expect(await page.locator('meta[name="baton-token"]').count()).toBe(0);
  });

  it("keeps the inspector's token from a script on the app's page that opens the inspector in a window", async () => {
    // The review's theft: open the inspector (a navigation, which its door lets through), read
    // its token out of the window, and credit mallory as trusted code with it.
    const targets = ['/_baton', `${dev.inspector}/`, `${dev.inspector}/_baton`];
    for (const [index, target] of targets.entries()) {
      const opened = page.context().waitForEvent('page');
      await page.evaluate((url) => {
        (window as unknown as { stolen: Window | null }).stolen = window.open(url);
      }, target);
      const popup = await opened;
      await popup.waitForLoadState();
      const loadedInspector = (await popup.locator('meta[name="baton-token"]').count()) === 1;
      const theft = await page.evaluate(
        async ({ inspector, key }) => {
          const stolen = (window as unknown as { stolen: Window | null }).stolen;
          let token: string | undefined;
          try {
            token =
              stolen?.document.querySelector<HTMLMetaElement>('meta[name="baton-token"]')
                ?.content ?? undefined;
          } catch {
            // Another origin's window: its document is not the opener's to read.
          }
          const statuses: (number | string)[] = [];
          for (const origin of ['', inspector]) {
            try {
              const response = await fetch(`${origin}/_baton/ask?as=system`, {
                method: 'POST',
                headers: { 'content-type': 'application/json', 'x-baton-token': token ?? '' },
                body: JSON.stringify({
                  idempotencyKey: key,
                  to: 'account/mallory',
                  name: 'credit',
                  payload: { from: 'nobody', amount: 1_000_000_000 },
                }),
              });
              statuses.push(response.status);
            } catch (caught) {
              statuses.push(String(caught));
            }
          }
          return { token, statuses };
        },
        { inspector: dev.inspector, key: `mint-${index}` },
      );
      const url = popup.url();
      await popup.close();
      expect(theft.token, target).toBeUndefined();
      expect(theft.statuses, target).not.toContain(200);
      if (target !== '/_baton') {
        // The inspector itself did open, on its own origin, where the app's page cannot look.
        expect(url).toBe(target);
        expect(loadedInspector, target).toBe(true);
      }
    }
    expect((await ask('mallory', 'balance', {})).body).toEqual({ value: 0 });
  });

  it('links to the inspector on its own port, which opens and shows every account', async () => {
    // The inspector signs in with the run's token, not the bank's: the bank's auth would refuse it.
    const opened = page.context().waitForEvent('page');
    await page.getByRole('link', { name: 'inspector' }).click();
    const inspector = await opened;
    await inspector.waitForLoadState();
    expect(inspector.url()).toBe(`${dev.inspector}/`);
    await expect.poll(() => inspector.getByTestId('connection').textContent()).toBe('open');
    await expect
      .poll(() => inspector.getByTestId('actor-account/bob').textContent())
      .toContain('{"balance":40');
    await inspector.close();
  });
});
