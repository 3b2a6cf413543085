/**
 * The chirper example's page in headless Chromium, served as `baton dev` would serve it (the
 * page bundled by esbuild, an index.html naming the WebSocket URL, Baton's local WebSocket
 * server over the embedded backend), all on loopback. Columns post, follow and unfollow; a post
 * shows live in its followers' columns, in this window and in another.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { silentLogger } from '@baton/core';
import { type EmbeddedRuntime, startEmbedded } from '@baton/embedded';
import { createLocalServer, type LocalServer } from '@baton/server/ws';
import { build } from 'esbuild';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import app from '../../examples/chirper/src/app.ts';
import { launchChromium } from './launchChromium.ts';

const HOST = '127.0.0.1';
const PAGE = join(import.meta.dirname, '..', '..', 'examples', 'chirper', 'src', 'web', 'page.tsx');

let runtime: EmbeddedRuntime;
let live: LocalServer;
let http: ReturnType<typeof createServer>;
let pageUrl: string;
let browser: Browser;
let page: Page;

async function bundlePage(): Promise<string> {
  const result = await build({
    entryPoints: [PAGE],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    jsx: 'automatic',
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

beforeAll(async () => {
  const script = await bundlePage();
  runtime = startEmbedded({ actors: app.actors, logger: silentLogger });
  live = await createLocalServer({
    actors: app.actors,
    queries: app.queries,
    backend: runtime,
    logger: silentLogger,
    // The page is on a port of its own, known once its server listens.
    allowedOrigins: (origin) => origin === new URL(pageUrl).origin,
  });
  const index = `<!doctype html>
<html lang="en">
  <head><meta charset="utf-8"><meta name="baton-url" content="${live.url}"><title>Chirper</title></head>
  <body><div id="root"></div><script type="module" src="/page.js"></script></body>
</html>`;
  http = createServer((request, response) => {
    if (request.url === '/page.js') {
      response.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(script);
    } else if (request.url === '/' || request.url?.startsWith('/?')) {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(index);
    } else {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => http.listen(0, HOST, resolve));
  pageUrl = `http://${HOST}:${(http.address() as AddressInfo).port}/`;
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1360, height: 860 } });
  await page.goto(pageUrl);
}, 30_000);

afterAll(async () => {
  await browser?.close();
  http?.closeAllConnections();
  await new Promise((resolve) => (http ? http.close(resolve) : resolve(undefined)));
  await live?.close();
  await runtime?.stop();
});

const column = (p: Page, user: string) => p.getByTestId(`column-${user}`);
const stats = (p: Page, user: string) => p.getByTestId(`stats-${user}`).textContent();
/** The posts a column's timeline shows, as `author: text`, top to bottom. */
const shown = (p: Page, user: string) =>
  column(p, user)
    .locator('.post')
    .evaluateAll((items) =>
      items.map(
        (item) =>
          `${item.querySelector('.post-meta b')?.textContent}: ${item.querySelector('.post-text')?.textContent}`,
      ),
    );

async function post(where: Locator, user: string, text: string): Promise<void> {
  const box = where.getByLabel(`post as ${user}`);
  await box.fill(text);
  await where.getByRole('button', { name: 'Post', exact: true }).click();
  // The box is cleared once the page's own timeline shows the post (read-your-writes).
  await expect.poll(() => box.inputValue()).toBe('');
}

describe('the chirper page in Chromium', () => {
  it('shows one connected column per user', async () => {
    await expect.poll(() => page.getByTestId('connection').textContent()).toBe('open');
    for (const user of ['alice', 'bob', 'carol']) {
      await expect.poll(() => stats(page, user)).toBe('0 posts · 0 following · 0 followers');
      await expect.poll(() => column(page, user).getByText('Nothing here yet').count()).toBe(1);
    }
  });

  it('follows from the page, on both sides', async () => {
    const follow = column(page, 'bob').getByRole('button', { name: 'Follow alice' });
    await follow.click();
    const unfollow = column(page, 'bob').getByRole('button', { name: 'Unfollow alice' });
    await expect.poll(() => unfollow.getAttribute('aria-pressed')).toBe('true');
    await expect.poll(() => stats(page, 'bob')).toBe('0 posts · 1 following · 0 followers');
    // alice's side changes by the message bob's actor sent hers.
    await expect.poll(() => stats(page, 'alice')).toBe('0 posts · 0 following · 1 follower');
  });

  it('shows a post live in its followers’ columns, in this window and another', async () => {
    const other = await browser.newPage({ viewport: { width: 520, height: 640 } });
    try {
      await other.goto(`${pageUrl}?users=alice`);
      await post(column(other, 'alice'), 'alice', 'Hello from alice — grüße!');
      await expect.poll(() => shown(page, 'bob')).toEqual(['alice: Hello from alice — grüße!']);
      await expect.poll(() => shown(page, 'alice')).toEqual(['alice: Hello from alice — grüße!']);

      // carol follows no one: her timeline holds only her own post.
      await post(column(page, 'carol'), 'carol', 'carol was here');
      expect(await shown(page, 'carol')).toEqual(['carol: carol was here']);
      expect(await shown(page, 'bob')).toEqual(['alice: Hello from alice — grüße!']);
      await other.screenshot({ path: '/tmp/chirper-second-window.png' });
    } finally {
      await other.close();
    }
  });

  it('brings a newly followed user’s posts into the timeline, newest first', async () => {
    await column(page, 'bob').getByRole('button', { name: 'Follow carol' }).click();
    await expect
      .poll(() => shown(page, 'bob'))
      .toEqual(['carol: carol was here', 'alice: Hello from alice — grüße!']);
    await post(column(page, 'bob'), 'bob', 'Following you both now.');
    await expect
      .poll(() => shown(page, 'bob'))
      .toEqual([
        'bob: Following you both now.',
        'carol: carol was here',
        'alice: Hello from alice — grüße!',
      ]);
    await column(page, 'alice').getByRole('button', { name: 'Follow bob' }).click();
    await expect
      .poll(() => shown(page, 'alice'))
      .toEqual(['bob: Following you both now.', 'alice: Hello from alice — grüße!']);
    await expect.poll(() => stats(page, 'bob')).toBe('1 post · 2 following · 1 follower');
    await page.screenshot({ path: '/tmp/chirper-page.png', fullPage: true });
  });

  it('removes a deleted post from every timeline, and an unfollowed user’s posts', async () => {
    await column(page, 'carol').getByRole('button', { name: 'delete "carol was here"' }).click();
    await expect.poll(() => shown(page, 'carol')).toEqual([]);
    await expect
      .poll(() => shown(page, 'bob'))
      .toEqual(['bob: Following you both now.', 'alice: Hello from alice — grüße!']);

    await column(page, 'bob').getByRole('button', { name: 'Unfollow alice' }).click();
    await expect.poll(() => shown(page, 'bob')).toEqual(['bob: Following you both now.']);
    await expect.poll(() => stats(page, 'alice')).toBe('1 post · 1 following · 0 followers');
  });

  it('opens a column for another user and says why a post is refused', async () => {
    await page.getByLabel('user name').fill('dave');
    await page.getByRole('button', { name: 'Add column' }).click();
    await expect.poll(() => stats(page, 'dave')).toBe('0 posts · 0 following · 0 followers');
    expect(new URL(page.url()).searchParams.get('users')).toBe('alice,bob,carol,dave');
    await column(page, 'dave').getByRole('button', { name: 'Follow alice' }).click();
    await expect.poll(() => shown(page, 'dave')).toEqual(['alice: Hello from alice — grüße!']);

    // Blank text cannot be posted; text past the limit is refused with the reason.
    const dave = column(page, 'dave');
    const button = dave.getByRole('button', { name: 'Post', exact: true });
    await dave.getByLabel('post as dave').fill('   ');
    expect(await button.isDisabled()).toBe(true);
    await dave.getByLabel('post as dave').fill('x'.repeat(281));
    expect(await page.getByTestId('left-dave').textContent()).toBe('-1');
    await button.click();
    await expect
      .poll(() => dave.getByRole('alert').textContent())
      .toMatch(/payload\.text: a post has at most 280 characters/);
    expect(await stats(page, 'dave')).toBe('0 posts · 1 following · 0 followers');
    await page.screenshot({ path: '/tmp/chirper-four-columns.png', fullPage: true });
  });
});
