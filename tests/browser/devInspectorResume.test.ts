/**
 * `baton dev`'s inspector resumes a paused workflow instance, in headless Chromium: a step
 * renamed while an instance waits makes its next replay diverge, so it pauses with its history
 * intact; with the old name back, the resume button carries it on to its end.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
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

beforeAll(async () => {
  app = copyFixtureApp('renamed-step');
  dataDir = mkdtempSync(join(tmpdir(), 'baton-resume-'));
  const port = await freePort();
  dev = await startDevProcess([
    join(app, 'src/app.ts'),
    '--port',
    String(port),
    '--data-dir',
    dataDir,
  ]);
  browser = await launchChromium();
}, 40_000);

afterAll(async () => {
  await browser?.close();
  await dev?.stop('SIGKILL');
  rmSync(app, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
});

let sends = 0;
const send = (name: string, payload: unknown) =>
  postJson(`${dev.origin}/send`, {
    to: 'wf-trip/t1',
    name,
    payload,
    idempotencyKey: `k${++sends}`,
  });
/** Renames the workflow's first step, and waits until the reloaded app runs with the name. */
async function renameFirstStep(name: string): Promise<void> {
  writeFileSync(join(app, 'src/step.ts'), `export const FIRST_STEP = '${name}';\n`);
  const running = async () =>
    (await postJson(`${dev.origin}/ask`, { to: 'code/c', name: 'firstStep', payload: {} })).body
      .value;
  await expect.poll(running, { timeout: 20_000 }).toBe(name);
}

describe("baton dev's inspector and a paused workflow", () => {
  it('shows an instance paused by a renamed step, and resumes it once the name is back', async () => {
    expect((await send('start', { input: {} })).status).toBe(202);
    const inspector = await browser.newPage({ viewport: { width: 1280, height: 1400 } });
    await inspector.goto(`${dev.inspector}/_baton`);
    const see = (testId: string) => inspector.getByTestId(testId).textContent();
    await expect.poll(() => see('wf-counts'), { timeout: 20_000 }).toBe('waiting 1');

    await renameFirstStep('hold');
    expect((await send('signal', { name: 'arrive', payload: 'ada' })).status).toBe(202);
    await expect.poll(() => see('wf-counts'), { timeout: 20_000 }).toBe('paused 1');
    await inspector.getByTestId('wf-trip/t1').click();
    await expect.poll(() => see('wf-title')).toMatch(/^trip\/t1 — paused/);
    // The history is the old code's, untouched: the step as it ran, the event journaled.
    await expect.poll(() => see('wf-step-0')).toMatch(/^0step reservedone/);

    await renameFirstStep('reserve');
    await inspector.getByRole('button', { name: 'resume', exact: true }).click();
    await expect.poll(() => see('wf-result')).toBe('resume: accepted');
    await expect.poll(() => see('wf-counts'), { timeout: 20_000 }).toBe('completed 1');
    await expect.poll(() => see('wf-title')).toMatch(/^trip\/t1 — completed/);
    const result = await postJson(`${dev.origin}/ask`, {
      to: 'wf-trip/t1',
      name: 'start',
      payload: { input: {} },
    });
    expect(result.body.value).toMatchObject({ status: 'completed', output: 'ada in room 7' });
    await inspector.close();
  });
});
