/**
 * `baton dev` against the pages of other sites, in headless Chromium: a page served from another
 * loopback port (another origin, same site) tries every door the review went through, and a page
 * on a name that resolves to this machine (DNS rebinding) tries them as if it were same-origin.
 * Nothing they send is applied, the crash switch stays off, the dead letter stays put, and
 * nothing they ask for comes back readable.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  copyFixtureApp,
  type DevProcess,
  freePort,
  postJson,
  startDevProcess,
} from '../dev/devProcess.ts';
import { launchChromium } from './launchChromium.ts';

/** A name that Chromium resolves to 127.0.0.1, as a rebinding attacker's DNS would. */
const REBOUND = 'rebound.test';

let app: string;
let dataDir: string;
let dev: DevProcess;
let port: number;
let elsewhere: Server;
let elsewhereOrigin: string;
let browser: Browser;
let inspector: Page;
let deadLetter: { actorId: string; messageId: string };

const ask = (to: string, name: string, payload: unknown) =>
  postJson(`${dev.origin}/ask`, { to, name, payload });
const text = (testId: string) => inspector.getByTestId(testId).textContent();

beforeAll(async () => {
  app = copyFixtureApp();
  dataDir = mkdtempSync(join(tmpdir(), 'baton-other-origin-'));
  port = await freePort();
  dev = await startDevProcess([
    join(app, 'src/app.ts'),
    '--port',
    String(port),
    '--data-dir',
    dataDir,
  ]);
  elsewhere = createServer((_request, response) =>
    response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>x</title>'),
  );
  await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
  elsewhereOrigin = `http://127.0.0.1:${(elsewhere.address() as { port: number }).port}`;
  browser = await launchChromium([`--host-resolver-rules=MAP ${REBOUND} 127.0.0.1`]);
  inspector = await browser.newPage();
  await inspector.goto(`${dev.inspector}/_baton`);

  // The state the attacks aim at: a counter at 5, and a dead letter on counter/a.
  expect((await ask('counter/c', 'add', { n: 5 })).body).toEqual({ value: 5 });
  expect((await ask('counter/a', 'add', { n: 1 })).body).toEqual({ value: 1 });
  const boom = await postJson(`${dev.origin}/send`, {
    to: 'counter/a',
    name: 'boom',
    payload: {},
    idempotencyKey: 'boom-1',
  });
  deadLetter = { actorId: 'counter/a', messageId: boom.body.messageId };
  await vi.waitFor(async () => expect(await text('depth-dead-letters')).toBe('1'), {
    timeout: 20_000,
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await dev?.stop('SIGKILL');
  await new Promise((resolve) => elsewhere?.close(resolve));
  rmSync(app, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
});

/** What a page's script got back: an error, or a response and whether its body was readable. */
type Outcome = { error: string } | { type: string; status: number; body?: string };

/** Runs in the attacking page: every write and read the review tried, by fetch and by form. */
async function attack(input: {
  target: string;
  deadLetter: { actorId: string; messageId: string };
}): Promise<Record<string, Outcome>> {
  const { target } = input;
  const add = { to: 'counter/c', name: 'add', payload: { n: 1000 } };
  const writes: Record<string, [string, unknown]> = {
    send: ['/send', { ...add, idempotencyKey: 'attack-send' }],
    ask: ['/ask', add],
    crash: ['/_baton/crash', {}],
    redrive: ['/_baton/redrive', input.deadLetter],
    'inspector send': ['/_baton/send', { ...add, idempotencyKey: 'attack-inspector' }],
    'inspector ask': ['/_baton/ask', add],
  };
  const outcome = async (request: Promise<Response>): Promise<Outcome> => {
    try {
      const response = await request;
      const body = response.type === 'opaque' ? undefined : await response.text();
      return {
        type: response.type,
        status: response.status,
        ...(body === undefined ? {} : { body }),
      };
    } catch (error) {
      return { error: String(error) };
    }
  };
  const results: Record<string, Outcome> = {};
  for (const [name, [path, body]] of Object.entries(writes)) {
    for (const type of ['text/plain', 'application/json']) {
      for (const mode of ['no-cors', 'cors'] as const) {
        results[`${name} ${type} ${mode}`] = await outcome(
          fetch(`${target}${path}`, {
            method: 'POST',
            mode,
            headers: { 'content-type': type },
            body: JSON.stringify(body),
          }),
        );
      }
    }
  }
  for (const path of ['/_baton', '/', `/outcome/${encodeURIComponent('x')}`]) {
    results[`read ${path}`] = await outcome(fetch(`${target}${path}`));
  }
  // The classic cross-site form: a text/plain POST whose body is JSON, into a hidden frame.
  const frame = document.createElement('iframe');
  frame.name = 'sink';
  document.body.append(frame);
  const form = document.createElement('form');
  Object.assign(form, {
    method: 'POST',
    action: `${target}/send`,
    enctype: 'text/plain',
    target: 'sink',
  });
  const field = document.createElement('input');
  const json = JSON.stringify({ ...add, idempotencyKey: 'attack-form', x: '' });
  field.name = json.slice(0, -2);
  field.value = '"}';
  form.append(field);
  document.body.append(form);
  await new Promise((resolve) => {
    frame.onload = resolve;
    form.submit();
  });
  // The WebSocket: the inspector's live query and an ask, if it ever opens.
  results.websocket = await new Promise<Outcome>((resolve) => {
    const socket = new WebSocket(target.replace(/^http/, 'ws'), ['baton.v1']);
    const frames: string[] = [];
    socket.onopen = () => {
      socket.send(
        JSON.stringify({ v: 1, type: 'subscribe', id: 's1', query: 'baton.inspector', args: {} }),
      );
      socket.send(
        JSON.stringify({ v: 1, type: 'ask', requestId: 'r1', ...add, idempotencyKey: 'attack-ws' }),
      );
    };
    socket.onmessage = (event) => {
      frames.push(String(event.data));
      if (frames.length === 2) socket.close();
    };
    socket.onclose = () =>
      resolve(
        frames.length > 0
          ? { type: 'websocket', status: 101, body: frames.join('\n') }
          : { error: 'closed' },
      );
  });
  return results;
}

/** The outcomes a page could read: a response it was allowed to see (not an error, not opaque). */
const readable = (results: Record<string, Outcome>) =>
  Object.entries(results).filter(([, outcome]) => 'type' in outcome && outcome.type !== 'opaque');

describe('baton dev against pages of other origins, in Chromium', () => {
  it('applies nothing a page on another port sends, and lets it read nothing', async () => {
    const pid = await inspector.locator('#backend').textContent();
    // The app's port, and the inspector's, each from a fresh page.
    for (const target of [dev.origin, dev.inspector]) {
      const page = await browser.newPage();
      await page.goto(`${elsewhereOrigin}/`);
      const results = await page.evaluate(attack, { target, deadLetter });
      // Every cross-origin request failed or came back opaque; none was readable.
      expect(readable(results), target).toEqual([]);
      expect(results.websocket, target).toEqual({ error: 'closed' });
      await page.close();
    }
    // Nothing applied: the counter, the dead letter, the crash switch (the next turn commits
    // without the app process being killed).
    expect((await ask('counter/c', 'add', { n: 0 })).body).toEqual({ value: 5 });
    expect((await ask('counter/a', 'add', { n: 0 })).body).toEqual({ value: 1 });
    await expect.poll(() => text('depth-dead-letters')).toBe('1');
    expect(await inspector.locator('#backend').textContent()).toBe(pid);
    expect(dev.output()).not.toMatch(/ended \(SIGKILL\)/);
  });

  it('refuses a page whose name was rebound to this machine, though the browser calls it same-origin', async () => {
    const page = await browser.newPage();
    const landing = await page.goto(`http://${REBOUND}:${port}/`);
    expect(landing?.status()).toBe(403);
    expect(await landing?.text()).toContain('DNS rebinding');
    const target = `http://${REBOUND}:${port}`;
    const results = await page.evaluate(attack, { target, deadLetter });
    // Same-origin for the browser, so readable: each one a refusal that names what to do.
    for (const [name, outcome] of readable(results)) {
      expect(outcome, name).toMatchObject({ status: 403 });
      expect('body' in outcome && outcome.body, name).toContain('--allow-origin');
    }
    expect(results.websocket).toEqual({ error: 'closed' });
    expect((await ask('counter/c', 'add', { n: 0 })).body).toEqual({ value: 5 });
    expect((await ask('counter/a', 'add', { n: 0 })).body).toEqual({ value: 1 });
    await expect.poll(() => text('depth-dead-letters')).toBe('1');
    expect(dev.output()).not.toMatch(/ended \(SIGKILL\)/);
    await page.close();
  });

  it('still serves its own inspector, whose live view and form work with the token', async () => {
    await expect.poll(() => text('connection')).toBe('open');
    await expect.poll(() => text('turn-count')).not.toBe('0');
    await inspector.getByLabel('actor').fill('counter/c');
    await inspector.getByLabel('message').fill('add');
    await inspector.getByLabel('payload').fill('{"n": 2}');
    await inspector.getByRole('button', { name: 'ask', exact: true }).click();
    await expect.poll(() => text('send-result')).toBe('reply: 7');
  });
});
