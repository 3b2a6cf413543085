/**
 * `baton inspect` in headless Chromium against DynamoDB Local and ElasticMQ: the page shows the
 * state the CLI reads (health, dead letters, an actor found by the start of its 1,000-character
 * key, its state, timer and history), the long key wraps inside the layout, a dead letter redriven
 * from the page (actions allowed) is applied once, and what holds an actor shows: the paused
 * actors on the overview (an id holding `<script>` as text), a failing message in its view, and,
 * ended from the page, its letter saying who ended it and when; a
 * letter kept as too old to tell says why a redrive needs force, and is redriven with force only
 * once the page's question is confirmed.
 */
import { join } from 'node:path';
import type { LocalSqsEventSource } from '@baton/aws/local';
import { type RunningInspector, resolveTarget, startInspector } from '@baton/cli/ops';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { faults, Note } from '../ops/fixtures/notesApp.ts';
import {
  batonJson,
  createOpsDeployment,
  type OpsDeployment,
  pumpUntil,
} from '../ops/fixtures/opsDeployment.ts';
import { keepTooOldLetter } from '../ops/fixtures/tooOldLetter.ts';
import { launchChromium } from './launchChromium.ts';

const APP = join(import.meta.dirname, '..', 'ops', 'fixtures', 'notesApp.ts');
const LONG = `note/${'k'.repeat(1000)}`;

describe('baton inspect in Chromium', () => {
  let deployment: OpsDeployment;
  let source: LocalSqsEventSource;
  let inspector: RunningInspector;
  let browser: Browser;
  let page: Page;

  async function baton(...argv: string[]) {
    return batonJson(deployment, argv);
  }

  const work = () => pumpUntil(deployment.queue, source);

  beforeAll(async () => {
    deployment = await createOpsDeployment('inspect-ui');
    source = deployment.worker([Note]);
    faults.poisoned = true;
    await baton('send', LONG, 'add', '{"entry":"first"}', '--app', APP);
    await baton('send', LONG, 'remind', '{"id":"later","inMs":3600000}', '--app', APP);
    await baton('send', 'note/other', 'add', '{"entry":"poison"}', '--app', APP);
    await work();
    inspector = await startInspector({
      target: await resolveTarget(deployment.options, {}),
      allowActions: true,
      operator: async () => 'test',
      audit: async () => {},
    });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1000, height: 900 } });
    await page.goto(inspector.url);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await inspector?.close();
  });

  const text = (testId: string) => page.getByTestId(testId).first().textContent();

  it('shows the health, what it did not check, and the dead letters the CLI reads', async () => {
    // A dead letter is a problem: status exits 3.
    const status = await batonJson(deployment, ['status'], 3);
    await expect.poll(() => text('dead-letter-count')).toBe(String(status.deadLetters));
    expect(status.deadLetters).toBe(1);
    expect(await text('health')).toContain('1 dead letter(s)');
    // The queues the CLI did not look at, the page names too (here: the stream's failures).
    expect(status.unchecked).not.toEqual([]);
    expect(await text('health')).toContain(`(not checked: ${status.unchecked.join('; ')})`);
    expect(await text('mode')).toBe('actions allowed');
    expect(await page.getByTestId('letter').first().textContent()).toContain('note/other');
  });

  it('finds the actor with a 1,000-character key by its start, shows it whole, and keeps it inside the layout', async () => {
    await page.getByTestId('prefix').fill('note/kkkk');
    await page.getByRole('button', { name: 'search' }).click();
    await page.locator('#results').getByTestId('actor-link').first().click();
    await expect.poll(() => text('actor-id')).toBe(LONG);
    const got = await baton('actors', 'get', LONG);
    expect(JSON.parse((await text('actor-state')) ?? '')).toEqual(got.state);
    expect(await text('actor-version')).toBe(String(got.version));
    expect(await page.getByTestId('timer').first().textContent()).toContain('later');
    // Its history, newest first: the timer it set, then the outcomes of its two messages.
    const history = await page.getByTestId('history-entry').allTextContents();
    expect(history).toEqual([
      expect.stringMatching(/timer setring/),
      expect.stringMatching(/outcome.+ok null$/),
      expect.stringMatching(/outcome.+ok null$/),
    ]);
    // The key wraps: nothing is wider than the window.
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow).toBeLessThanOrEqual(0);
    // And its link round-trips through the URL.
    expect(decodeURIComponent(new URL(page.url()).hash.slice('#actor='.length))).toBe(LONG);
  });

  it('redrives a dead letter from the page, applied once after the fix', async () => {
    faults.poisoned = false;
    await page.getByRole('button', { name: 'redrive' }).first().click();
    // Back in the actor's inbox: the worker applies it, and the page shows no dead letter.
    await expect.poll(async () => (await deployment.queue.approximateCounts()).visible).toBe(1);
    expect(await text('error')).toBe('');
    // Redriven, not applied yet: a purge now would leave that redrive nothing to apply. The
    // page asks first and says so; dismissed, nothing is purged.
    await page.reload();
    const questions: string[] = [];
    page.once('dialog', (dialog) => {
      questions.push(dialog.message());
      void dialog.dismiss();
    });
    await page.locator('#dead-letters').getByRole('button', { name: 'purge' }).click();
    await expect.poll(() => questions.length).toBe(1);
    expect(questions[0]).toBe(
      "Purge this dead letter? It is never applied. Its last redrive is not applied yet: purged now, that redrive applies nothing. To have it applied, do not purge: wait for its actor's turn.",
    );
    await work();
    await page.reload();
    await expect.poll(() => text('dead-letter-count')).toBe('0');
    expect((await baton('actors', 'get', 'note/other')).state).toEqual({ entries: ['poison'] });
    expect((await baton('dead-letters', 'list')).deadLetters).toEqual([]);
  });

  it("lists the paused actors as text, and shows the message failing at an actor's head", async () => {
    const odd = 'note/<script>window.injected = true</script>';
    // No record yet: a pause before its first turn takes --force.
    await baton('actors', 'pause', odd, '--force');
    faults.poisoned = true;
    await baton('send', 'note/failing', 'add', '{"entry":"poison"}', '--app', APP);
    for (let i = 0; (await deployment.store.load('note/failing'))?.failing === undefined; i++) {
      if (i >= 40) throw new Error("note/failing's message did not fail");
      if ((await source.pollOnce()) === 0) await new Promise((r) => setTimeout(r, 100));
    }
    await page.goto(inspector.url);
    await expect.poll(() => text('paused-count')).toBe('1');
    const paused = page.getByTestId('paused-actor');
    expect(await paused.count()).toBe(1);
    expect(await paused.first().textContent()).toMatch(
      /^note\/<script>window\.injected = true<\/script>\d{4}-.+Ztest0$/,
    );
    // Rendered as text: no element made of it, no script run.
    expect(await page.locator('#paused script').count()).toBe(0);
    expect(await page.evaluate(() => (window as { injected?: boolean }).injected)).toBeUndefined();

    // Its link opens it: paused, by whom.
    await paused.getByTestId('actor-link').click();
    await expect.poll(() => text('actor-id')).toBe(odd);
    expect(await text('actor-paused')).toMatch(/^since \d{4}-.+Z by test/);

    const { failingMessage } = await baton('actors', 'get', 'note/failing');
    await page.goto(`${inspector.url}#actor=${encodeURIComponent('note/failing')}`);
    await expect.poll(() => text('actor-id')).toBe('note/failing');
    expect(await text('actor-failing')).toBe(
      `${failingMessage.messageId} at inbox position ${failingMessage.inboxPosition}, failing since ${new Date(failingMessage.since).toISOString()}, failed ${failingMessage.attempts} time(s) in ${failingMessage.handler}: ${failingMessage.error.code}: ${failingMessage.error.message} — its later messages wait until it is applied or dead-lettered`,
    );
    // Ended from the page, once confirmed: the line says so, and the button is gone.
    const questions: string[] = [];
    page.once('dialog', (dialog) => {
      questions.push(dialog.message());
      void dialog.accept();
    });
    await page.getByRole('button', { name: 'end', exact: true }).click();
    await expect
      .poll(() => text('actor-failing'))
      .toMatch(
        / — ended by test: its next delivery keeps it as a dead letter, its handler not run$/,
      );
    expect(questions).toEqual([expect.stringMatching(/^End this failing message\?/)]);
    expect(await text('error')).toBe('');
    expect(await page.getByRole('button', { name: 'end', exact: true }).count()).toBe(0);
    // Its next delivery keeps it as a dead letter without a run; nothing is failing.
    await work();
    await page.reload();
    await expect.poll(() => text('actor-id')).toBe('note/failing');
    expect(await page.getByTestId('actor-failing').count()).toBe(0);
    const [letter] = (await baton('dead-letters', 'list')).deadLetters.filter(
      (l: { actor: string }) => l.actor === 'note/failing',
    );
    expect(letter).toMatchObject({ messageId: failingMessage.messageId });
    // Its letter says who ended it and when, as dead-letters show does.
    expect(await text('letter-trail')).toMatch(
      new RegExp(
        `^ended by test at ${letter.ended.at} \\([^)]+ ago\\), while it failed at the head of note/failing's inbox \\(actors end-failing\\): its next delivery kept it as this dead letter without running its handler again$`,
      ),
    );
    await baton('dead-letters', 'purge', 'note/failing', failingMessage.messageId, '--yes');
    faults.poisoned = false;
  });

  it('redrives a letter kept as too old to tell only with force, once its question is confirmed, the reason shown', async () => {
    faults.poisoned = false;
    await baton('send', 'note/old', 'add', '{"entry":"first"}', '--app', APP);
    await work();
    // A message of a sender's life that ended, kept as too old to tell (as the engine keeps it).
    await keepTooOldLetter(deployment.store, 'note/old');
    await page.goto(inspector.url);
    await expect.poll(() => text('dead-letter-count')).toBe('1');
    expect(await text('needs-force')).toBe(
      'a redrive needs force: kept as too old to tell whether it was applied: redrive it only if you know it never was, else purge it',
    );
    const button = page.locator('#dead-letters').getByRole('button', { name: 'redrive anyway' });
    // Not confirmed: nothing is sent.
    const questions: string[] = [];
    page.once('dialog', (dialog) => {
      questions.push(dialog.message());
      void dialog.dismiss();
    });
    await button.click();
    await expect.poll(() => questions.length).toBe(1);
    expect(questions[0]).toBe(
      'It was kept as too old to tell whether it was applied: it may have been applied already, and redriven it would be applied twice. Redrive it only if you know it was never applied (else purge it). Redrive it anyway?',
    );
    expect((await deployment.queue.approximateCounts()).visible).toBe(0);
    // Confirmed: redriven with force, applied once.
    page.once('dialog', (dialog) => void dialog.accept());
    await button.click();
    await expect.poll(async () => (await deployment.queue.approximateCounts()).visible).toBe(1);
    expect(await text('error')).toBe('');
    await work();
    expect((await baton('actors', 'get', 'note/old')).state).toEqual({
      entries: ['first', 'late'],
    });
    expect((await baton('dead-letters', 'list')).deadLetters).toEqual([]);
  });
});
