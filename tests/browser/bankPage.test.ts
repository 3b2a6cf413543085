/**
 * The bank example's live page (what `pnpm start` serves) in headless Chromium: alice signed in
 * sees only her account, an admin (teller) every one; a transfer alice makes shows in both, a
 * refused one says why; a page without a valid token gets nothing.
 */
import { silentLogger } from '@baton/core';
import { type EmbeddedRuntime, startEmbedded } from '@baton/embedded';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Account } from '../../examples/bank/src/bank.ts';
import { demoToken } from '../../examples/bank/src/demoAuth.ts';
import { type LivePage, servePage } from '../../examples/bank/src/web/servePage.ts';
import { launchChromium } from './launchChromium.ts';

let runtime: EmbeddedRuntime;
let live: LivePage;
let browser: Browser;
let first: Page;
let second: Page;

beforeAll(async () => {
  runtime = startEmbedded({ actors: [Account], logger: silentLogger });
  await runtime.client.asSystem().ask(Account.ref('alice'), 'deposit', { amount: 100 });
  live = await servePage({ runtime, logger: silentLogger });
  browser = await launchChromium();
  [first, second] = await Promise.all([browser.newPage(), browser.newPage()]);
  const alice = demoToken({ userId: 'alice', role: 'customer' });
  const teller = demoToken({ userId: 'teller', role: 'admin' });
  await Promise.all([
    first.goto(`${live.url}#token=${alice}`),
    second.goto(`${live.url}#token=${teller}`),
  ]);
}, 30_000);

afterAll(async () => {
  await browser?.close();
  await live?.close();
  await runtime?.stop();
});

const cell = (page: Page, id: string) => page.getByTestId(id);

async function transfer(page: Page, from: string, to: string, amount: number): Promise<void> {
  await page.getByLabel('from').selectOption(from);
  await page.getByLabel('to').selectOption(to);
  await page.getByLabel('amount').fill(String(amount));
  await page.getByRole('button', { name: 'send' }).click();
}

describe('the bank example page in Chromium', () => {
  it('shows the committed balances live in two windows: alice only hers, the admin all', async () => {
    for (const page of [first, second]) {
      await expect.poll(() => cell(page, 'balance-alice').textContent()).toBe('100');
      await expect.poll(() => cell(page, 'total').textContent()).toBe('100');
      await expect.poll(() => cell(page, 'connection').textContent()).toBe('open');
    }
    expect(await cell(second, 'balance-bob').textContent()).toBe('0');
    expect(await cell(first, 'balance-bob').count()).toBe(0);
  });

  it('shows a transfer made in one window in both, the sender’s once it is visible', async () => {
    await transfer(first, 'alice', 'bob', 30);
    await expect.poll(() => cell(first, 'outcome').textContent()).toBe('done');
    // read-your-writes: "done" came after the sender's table showed the withdrawal.
    expect(await cell(first, 'balance-alice').textContent()).toBe('70');
    await expect.poll(() => cell(second, 'balance-bob').textContent()).toBe('30');
    await expect.poll(() => cell(second, 'total').textContent()).toBe('100');
  });

  it('says why a transfer was refused and changes nothing', async () => {
    await transfer(first, 'alice', 'bob', 500);
    await expect
      .poll(() => cell(first, 'outcome').textContent())
      .toMatch(/^refused: insufficient funds/);
    // Even an admin may not move money out of someone else's account.
    await transfer(second, 'bob', 'alice', 5);
    await expect.poll(() => cell(second, 'outcome').textContent()).toMatch(/^refused: not allowed/);
    await runtime.idle();
    expect(await runtime.client.asSystem().ask(Account.ref('alice'), 'balance', {})).toBe(70);
    expect(await cell(second, 'total').textContent()).toBe('100');
  });

  it('shows a page without a token the sign-in form, and no balance', async () => {
    const page = await browser.newPage();
    await page.goto(live.url);
    await expect.poll(() => page.getByLabel('token').count()).toBe(1);
    expect(await cell(page, 'balance-alice').count()).toBe(0);
    await page.close();
  });
});
