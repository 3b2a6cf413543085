/**
 * The bank example's live page (what `pnpm start` serves) in headless Chromium: alice signed in
 * sees only her account, an admin (teller) every one; a transfer alice makes shows in both, a
 * refused one says why; a page without a valid token gets nothing, and one whose token expired
 * says so and stops connecting. A sign-in link (`#token=…`) signs in only once the user confirms
 * the account it names: another's link cannot sign a victim in to the sender's account unseen.
 * The page is sent with the
 * content security policy the deployed one gets from CloudFront, and works under it.
 */
import { silentLogger } from '@baton/core';
import { type EmbeddedRuntime, startEmbedded } from '@baton/embedded';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Account } from '../../examples/bank/src/bank.ts';
import { demoToken } from '../../examples/bank/src/demoAuth.ts';
import { pagePolicy } from '../../examples/bank/src/web/pageFiles.ts';
import { type LivePage, servePage } from '../../examples/bank/src/web/servePage.ts';
import { launchChromium } from './launchChromium.ts';

let runtime: EmbeddedRuntime;
let live: LivePage;
let browser: Browser;
let first: Page;
let second: Page;
/** What Chromium refused under the page's content security policy, from any page. */
const violations: string[] = [];
let policy: string | undefined;

beforeAll(async () => {
  runtime = startEmbedded({ actors: [Account], logger: silentLogger });
  await runtime.client.asSystem().ask(Account.ref('alice'), 'deposit', { amount: 100 });
  live = await servePage({ runtime, logger: silentLogger });
  browser = await launchChromium();
  [first, second] = await Promise.all([browser.newPage(), browser.newPage()]);
  for (const page of [first, second]) {
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
  }
  const alice = demoToken({ userId: 'alice', role: 'customer' });
  const teller = demoToken({ userId: 'teller', role: 'admin' });
  const [landing] = await Promise.all([
    signInByLink(first, alice, 'alice'),
    signInByLink(second, teller, 'teller'),
  ]);
  policy = landing?.headers()['content-security-policy'];
}, 30_000);

/** Opens the sign-in link of `token` and confirms the account it names. */
async function signInByLink(page: Page, token: string, userId: string) {
  const landing = await page.goto(`${live.url}#token=${token}`);
  await page.getByRole('button', { name: `sign in as ${userId}` }).click();
  return landing;
}

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

  it('tells a page whose token expired to sign in again, and stops connecting', async () => {
    const page = await browser.newPage();
    let sockets = 0;
    page.on('websocket', () => sockets++);
    const hoursAgo = Date.now() - 13 * 3_600_000; // a 12-hour token made 13 hours ago
    const expired = demoToken({ userId: 'alice', role: 'customer' }, { now: hoursAgo });
    await signInByLink(page, expired, 'alice');
    await expect.poll(() => cell(page, 'connection').textContent()).toBe('closed');
    expect(await page.getByRole('alert').textContent()).toMatch(/^the server refused the token/);
    expect(await cell(page, 'balance-alice').count()).toBe(0);
    await page.waitForTimeout(1_000); // past several of the page's reconnect waits
    expect(sockets).toBe(1);
    await page.getByRole('button', { name: 'sign in again' }).click();
    await expect.poll(() => page.getByLabel('token').count()).toBe(1);
    await page.close();
  });

  it('asks before a link signs in, naming its account, and connects as no one until confirmed', async () => {
    const page = await browser.newPage();
    let sockets = 0;
    page.on('websocket', () => sockets++);
    const alice = demoToken({ userId: 'alice', role: 'customer' });
    const mallory = demoToken({ userId: 'mallory', role: 'customer' });
    await page.goto(`${live.url}#token=${mallory}`);
    const ask = cell(page, 'confirm-link');
    await expect.poll(() => ask.count()).toBe(1);
    expect(await ask.textContent()).toContain("deposits go to mallory's account");
    // The token is off the address at once, and nothing is connected or kept before a yes.
    expect(new URL(page.url()).hash).toBe('');
    expect(await cell(page, 'balance-alice').count()).toBe(0);
    expect(sockets).toBe(0);
    await page.getByRole('button', { name: 'cancel' }).click();
    await expect.poll(() => page.getByLabel('token').count()).toBe(1);
    expect(sockets).toBe(0);

    // Signed in as alice, a link for mallory asks too, and alice may stay herself.
    await signInByLink(page, alice, 'alice');
    await expect.poll(() => cell(page, 'me').textContent()).toBe('alice');
    await page.goto(`${live.url}#token=${mallory}`);
    await expect.poll(() => ask.textContent()).toContain('This tab is signed in as alice now.');
    await page.getByRole('button', { name: 'stay alice' }).click();
    await expect.poll(() => cell(page, 'me').textContent()).toBe('alice');
    await expect.poll(() => cell(page, 'balance-alice').textContent()).toBe('70');

    // Said yes to, the link signs the tab in as the account it named.
    await signInByLink(page, mallory, 'mallory');
    await expect.poll(() => cell(page, 'me').textContent()).toBe('mallory');
    await page.close();
  });

  it('works under the content security policy the deployed page is sent with, which Chromium enforces', async () => {
    const url = await first.locator('meta[name="baton-url"]').getAttribute('content');
    expect(policy).toBe(pagePolicy(new URL(url ?? '').origin));
    expect(policy).toContain("frame-ancestors 'none'");
    // Nothing the page did in the tests above was refused.
    expect(violations).toEqual([]);
    // The policy is enforced: an inline script, which it does not allow, does not run.
    const ran = await first.evaluate(() => {
      const script = document.createElement('script');
      script.textContent = 'window.inlineRan = true';
      document.body.append(script);
      return (window as { inlineRan?: boolean }).inlineRan === true;
    });
    expect(ran).toBe(false);
    await expect.poll(() => violations.length).toBe(1);
    expect(violations[0]).toMatch(/inline script/);
  });
});
