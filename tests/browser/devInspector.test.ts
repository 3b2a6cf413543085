/**
 * `baton dev`'s inspector (`/_baton`) in headless Chromium, kept live by its own query over the
 * app's WebSocket: actors with state, version and inbox position; turns; live queries; a form
 * that asks an actor; a message that keeps failing, shown holding its actor while it is
 * retried, then a dead letter that is redriven once its bug is fixed (a code reload); an actor's
 * history, read from the journal, the same after baton dev restarts; the letter of an ask told
 * DEAD_LETTERED, redriven only by a second click; a dead letter purged, applied never.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  copyFixtureApp,
  type DevProcess,
  freePort,
  postJson,
  startDevProcess,
} from '../dev/devProcess.ts';
import { launchChromium } from './launchChromium.ts';

let app: string;
let dataDir: string;
let dev: DevProcess;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  app = copyFixtureApp();
  dataDir = mkdtempSync(join(tmpdir(), 'baton-inspector-'));
  dev = await startDev();
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 1100 } });
  await page.goto(`${dev.inspector}/_baton`);
}, 40_000);

/** `baton dev` on the fixture app and this file's data directory, on a free port. */
async function startDev(): Promise<DevProcess> {
  const port = await freePort();
  return startDevProcess([join(app, 'src/app.ts'), '--port', String(port), '--data-dir', dataDir]);
}

afterAll(async () => {
  await browser?.close();
  await dev?.stop('SIGKILL');
  rmSync(app, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
});

const text = (testId: string) => page.getByTestId(testId).textContent();

describe("baton dev's inspector in Chromium", () => {
  it('connects and lists its own live query with its subscriber', async () => {
    await expect.poll(() => text('connection')).toBe('open');
    await expect.poll(() => page.locator('#types').textContent()).toContain('counter');
    await expect
      .poll(() => page.locator('#queries').textContent())
      .toMatch(/baton\.inspector\{\}1/);
  });

  it('asks an actor from its form and shows the actor, its state and the turn', async () => {
    await page.getByLabel('actor').fill('counter/a');
    await page.getByLabel('message').fill('add');
    await page.getByLabel('payload').fill('{"n": 2}');
    await page.getByRole('button', { name: 'ask', exact: true }).click();
    await expect.poll(() => text('send-result')).toBe('reply: 2');
    const row = page.getByTestId('actor-counter/a');
    await expect.poll(() => row.textContent()).toBe('counter/a11{"count":2}');
    await expect
      .poll(() => page.locator('#turns').textContent())
      .toMatch(/counter\/aadd from ingress ok/);
  });

  it('asks an internal handler from its form only as trusted code', async () => {
    await page.getByLabel('actor').fill('counter/b');
    await page.getByLabel('message').fill('set');
    await page.getByLabel('payload').fill('{"n": 5}');
    await page.getByRole('button', { name: 'ask', exact: true }).click();
    await expect.poll(() => text('send-result')).toMatch(/^FORBIDDEN: /);
    await page.getByLabel('as trusted code').check();
    await page.getByRole('button', { name: 'ask', exact: true }).click();
    await expect.poll(() => text('send-result')).toBe('reply: 5');
    await page.getByLabel('as trusted code').uncheck();
  });

  it('shows a message sent with HTTP that keeps failing as a dead letter', async () => {
    const sent = await postJson(`${dev.origin}/send`, {
      to: 'counter/a',
      name: 'boom',
      payload: {},
      idempotencyKey: 'boom-1',
    });
    expect(sent.status).toBe(202);
    // Retried (after 1 s, then 2 s) before it is dead-lettered, it holds counter/a meanwhile.
    await expect.poll(() => text('held-counter/a')).toMatch(/^failing, [12] attempt\(s\)$/);
    await page.getByTestId('actor-counter/a').click();
    await expect
      .poll(() => text('actor-holds'))
      .toMatch(
        /^failing message \S+ at inbox position \d+, failing since .+, failed [12] time\(s\) in \S+: [A-Z_]+: .+ — its later messages wait until it is applied or dead-lettered/,
      );
    await expect.poll(() => text('depth-dead-letters'), { timeout: 20_000 }).toBe('1');
    // Dead-lettered, it holds the actor no more.
    await expect.poll(() => text('held-counter/a')).toBe('');
    await expect.poll(() => text('actor-holds')).toBe('');
    expect(await text('paused-actors')).toBe('no actor is paused');
    const letters = page.locator('#dead-letters');
    expect(await letters.textContent()).toContain('boom: fixed in v2');
    await expect
      .poll(() => page.locator('#turns').textContent())
      .toMatch(/boom from ingress (retry|dead-lettered)/);
  });

  it('redrives the dead letter once the code is fixed, after the app reloads', async () => {
    const before = await page.locator('#backend').textContent();
    writeFileSync(join(app, 'src/version.ts'), "export const VERSION = 'v2';\n");
    // The app process is replaced; the page reconnects to the same URL and resumes.
    await expect
      .poll(() => page.locator('#backend').textContent(), { timeout: 20_000 })
      .not.toBe(before);
    await expect.poll(() => text('connection')).toBe('open');
    await expect.poll(() => text('depth-dead-letters')).toBe('1');
    await page.screenshot({ path: join(tmpdir(), 'baton-dev-inspector.png'), fullPage: true });
    await page.getByRole('button', { name: 'redrive' }).click();
    await expect.poll(() => text('depth-dead-letters'), { timeout: 10_000 }).toBe('0');
    await expect
      .poll(() => page.getByTestId('actor-counter/a').textContent())
      .toMatch(/\{"count":102\}$/);
    await page.screenshot({
      path: join(tmpdir(), 'baton-dev-inspector-redriven.png'),
      fullPage: true,
    });
  });

  it("shows an actor's history as the store keeps it, the same after baton dev restarts", async () => {
    const history = () => page.getByTestId('history-entry').allTextContents();
    await page.getByTestId('actor-counter/a').click();
    await expect.poll(() => text('history-actor')).toBe('counter/a');
    // Newest first: the redriven message's outcome (not its DEAD_LETTERED), then the ask's.
    await expect
      .poll(history)
      .toEqual([
        expect.stringMatching(/outcomeboom-1ok 102$/),
        expect.stringMatching(/outcome\S+ok 2$/),
      ]);
    const before = await history();

    await dev.stop('SIGINT');
    dev = await startDev();
    await page.goto(`${dev.inspector}/_baton`);
    await expect.poll(() => text('connection')).toBe('open');
    // The live view's turns were in the old process's memory; the history is in the journal.
    await expect.poll(() => page.locator('#turns').textContent()).toContain('no turn since');
    await page.getByTestId('actor-counter/a').click();
    await expect.poll(history).toEqual(before);
  });

  it('redrives the letter of an ask told it failed only on a second click, the refusal its title', async () => {
    await reloadWith('v1');
    const asked = await postJson(`${dev.origin}/ask`, {
      to: 'counter/c',
      name: 'boom',
      payload: {},
      idempotencyKey: 'boom-2',
    });
    expect(asked.status).toBe(422);
    await expect.poll(() => text('depth-dead-letters'), { timeout: 10_000 }).toBe('1');
    await reloadWith('v2');

    await page.getByRole('button', { name: 'redrive' }).click();
    const anyway = page.getByRole('button', {
      name: 'its sender was told it failed: redrive anyway',
    });
    await expect
      .poll(() => anyway.getAttribute('title'))
      .toMatch(/^dead letter \S+ of counter\/c was not redriven: .* it was told DEAD_LETTERED/);
    // The first click redrove nothing: the letter is still kept, counter/c unchanged.
    expect(await text('depth-dead-letters')).toBe('1');
    expect(await page.getByTestId('actor-counter/c').textContent()).toMatch(/\{"count":0\}$/);
    // A push of the live view redraws the table: the button stays armed, its refusal its title.
    const other = await postJson(`${dev.origin}/ask`, {
      to: 'counter/d',
      name: 'add',
      payload: { n: 1 },
    });
    expect(other.status).toBe(200);
    await expect.poll(() => page.getByTestId('actor-counter/d').count()).toBe(1);
    expect(await anyway.getAttribute('title')).toMatch(
      /^dead letter \S+ of counter\/c was not redriven/,
    );
    // The refusal names the inspector's buttons, not the baton commands dev refuses.
    expect(await anyway.getAttribute('title')).toContain(
      'purge it (the purge button on that dead letter in the inspector, or POST /_baton/purge on its port)',
    );
    await anyway.click();
    await expect.poll(() => text('depth-dead-letters'), { timeout: 10_000 }).toBe('0');
    await expect
      .poll(() => page.getByTestId('actor-counter/c').textContent())
      .toMatch(/\{"count":100\}$/);
  });

  it('purges a dead letter with the button beside its redrive, applying nothing', async () => {
    await reloadWith('v1');
    const asked = await postJson(`${dev.origin}/ask`, {
      to: 'counter/e',
      name: 'boom',
      payload: {},
      idempotencyKey: 'boom-3',
    });
    expect(asked.status).toBe(422);
    await expect.poll(() => text('depth-dead-letters'), { timeout: 10_000 }).toBe('1');
    await reloadWith('v2');
    await page.getByRole('button', { name: 'purge' }).click();
    await expect.poll(() => text('depth-dead-letters'), { timeout: 10_000 }).toBe('0');
    // Forgotten, not applied: the fixed handler never ran for it.
    await page.getByTestId('actor-counter/e').click();
    await expect.poll(() => text('history-actor')).toBe('counter/e');
    const history = page.locator('#history');
    await expect.poll(() => history.textContent()).toContain('DEAD_LETTERED');
    expect(await page.getByTestId('actor-counter/e').textContent()).toMatch(/\{"count":0\}$/);
  });
});

/** Edits the fixture's version, then waits until the page is on the reloaded app. */
async function reloadWith(version: 'v1' | 'v2'): Promise<void> {
  const before = await page.locator('#backend').textContent();
  writeFileSync(join(app, 'src/version.ts'), `export const VERSION = '${version}';\n`);
  await expect
    .poll(() => page.locator('#backend').textContent(), { timeout: 20_000 })
    .not.toBe(before);
  await expect.poll(() => text('connection')).toBe('open');
}
