/**
 * The bank example's live page (what `pnpm start` serves) in headless Chromium: two windows
 * show the same balances; a transfer made in one shows in both, a refused one says why.
 */
import { silentLogger } from '@baton/core';
import { type EmbeddedRuntime, startEmbedded } from '@baton/embedded';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Account } from '../../examples/bank/src/bank.ts';
import { type LivePage, servePage } from '../../examples/bank/src/web/servePage.ts';
import { launchChromium } from './launchChromium.ts';

let runtime: EmbeddedRuntime;
let live: LivePage;
let browser: Browser;
let first: Page;
let second: Page;

beforeAll(async () => {
  runtime = startEmbedded({ actors: [Account], logger: silentLogger });
  await runtime.client.ask(Account.ref('alice'), 'deposit', { amount: 100 });
  live = await servePage({ runtime, logger: silentLogger });
  browser = await launchChromium();
  [first, second] = await Promise.all([browser.newPage(), browser.newPage()]);
  await Promise.all([first.goto(live.url), second.goto(live.url)]);
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
  it('shows the committed balances live in two windows', async () => {
    for (const page of [first, second]) {
      await expect.poll(() => cell(page, 'balance-alice').textContent()).toBe('100');
      await expect.poll(() => cell(page, 'total').textContent()).toBe('100');
      await expect.poll(() => cell(page, 'connection').textContent()).toBe('open');
    }
  });

  it('shows a transfer made in one window in both, the sender’s once it is visible', async () => {
    await transfer(first, 'alice', 'bob', 30);
    await expect.poll(() => cell(first, 'outcome').textContent()).toBe('done');
    // read-your-writes: "done" came after the sender's table showed the withdrawal.
    expect(await cell(first, 'balance-alice').textContent()).toBe('70');
    for (const page of [first, second]) {
      await expect.poll(() => cell(page, 'balance-bob').textContent()).toBe('30');
      await expect.poll(() => cell(page, 'total').textContent()).toBe('100');
    }
  });

  it('says why a transfer was refused and changes nothing', async () => {
    await transfer(second, 'carol', 'alice', 5);
    await expect
      .poll(() => cell(second, 'outcome').textContent())
      .toMatch(/^refused: insufficient funds/);
    await runtime.idle();
    expect(await runtime.client.ask(Account.ref('alice'), 'balance', {})).toBe(70);
    expect(await cell(first, 'total').textContent()).toBe('100');
  });
});
