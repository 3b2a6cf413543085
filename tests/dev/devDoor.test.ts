/**
 * `baton dev`'s door as a real process: a foreign `Host` (DNS rebinding) and a `text/plain` body
 * are refused before anything runs; the inspector's live query answers only with this run's
 * token; and the app process behind it answers nothing that did not come through its port. It
 * runs with `--log-level warn`, which the app process's logger is given.
 */
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { runOps } from '@baton/cli/ops';
import { BatonClient, type QueryState } from '@baton/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { InspectorSnapshot } from '../../packages/cli/src/dev/inspector/InspectorSnapshot.ts';
import {
  copyFixtureApp,
  type DevProcess,
  freePort,
  inspectorToken,
  postJson,
  startDevProcess,
} from './devProcess.ts';

/** The one other origin this run trusts. */
const TRUSTED = 'http://localhost:5173';

let app: string;
let dev: DevProcess;
let port: number;

const count = async () =>
  (await postJson(`${dev.origin}/ask`, { to: 'counter/c', name: 'add', payload: { n: 0 } })).body
    .value;
const add1000 = JSON.stringify({ to: 'counter/c', name: 'add', payload: { n: 1000 } });

/** A raw HTTP request (fetch cannot set `Host`): its status and body. */
function raw(
  targetPort: number,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: targetPort, path, method: body ? 'POST' : 'GET', headers },
      (response) => {
        let text = '';
        response.on('data', (chunk) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode!, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Subscribes to the inspector's query with `args` and waits for its first answer. */
async function inspectorWith(args: object): Promise<QueryState<InspectorSnapshot>> {
  const client = new BatonClient({ url: dev.origin.replace(/^http/, 'ws'), WebSocket });
  try {
    return await new Promise((resolve) => {
      client.subscribe<InspectorSnapshot>('baton.inspector', args, (state) => {
        if (state.status !== 'pending') resolve(state);
      });
    });
  } finally {
    client.close();
  }
}

beforeAll(async () => {
  app = copyFixtureApp();
  port = await freePort();
  dev = await startDevProcess([
    join(app, 'src/app.ts'),
    '--port',
    String(port),
    '--in-memory',
    '--allow-origin',
    TRUSTED,
    '--log-level',
    'warn',
  ]);
  expect(
    await postJson(`${dev.origin}/ask`, { to: 'counter/c', name: 'add', payload: { n: 5 } }),
  ).toEqual({ status: 200, body: { value: 5 } });
});

afterAll(async () => {
  await dev?.stop('SIGKILL');
  rmSync(app, { recursive: true, force: true });
});

describe("baton dev's door", () => {
  it('tells baton --local that an embedded app is operated from its inspector, not the CLI', async () => {
    const err: string[] = [];
    const code = await runOps(['status', '--local', dev.origin], {
      out: () => {},
      err: (line) => err.push(line),
      env: {},
      now: () => Date.now(),
    });
    expect(code).toBe(2);
    expect(err.join('\n')).toMatch(/embedded backend.*--backend local-aws/);
  });

  it('refuses a request naming another host, as DNS rebinding does, and applies nothing', async () => {
    const rebound = await raw(
      port,
      '/ask',
      { host: `rebound.example:${port}`, 'content-type': 'application/json' },
      add1000,
    );
    expect(rebound.status).toBe(403);
    expect(JSON.parse(rebound.body).error.message).toContain(
      `pass --allow-origin http://rebound.example:${port}`,
    );
    const inspectorPort = Number(new URL(dev.inspector).port);
    const page = await raw(inspectorPort, '/', { host: `rebound.example:${inspectorPort}` });
    expect(page.status).toBe(403);
    expect(page.body).toContain('DNS rebinding');
    expect(page.body).not.toContain('baton-token');
    expect(await count()).toBe(5);
  });

  it('prints why it refused a WebSocket from another page, once, since a browser shows only code 1006', async () => {
    const foreign = 'https://elsewhere.example';
    const open = () =>
      new Promise<number>((resolve, reject) => {
        const socket = new WebSocket(dev.origin.replace(/^http/, 'ws'), {
          headers: { origin: foreign },
        });
        socket.on('unexpected-response', (_request, response) => resolve(response.statusCode!));
        socket.on('open', () => reject(new Error('a WebSocket from another origin was opened')));
        socket.on('error', () => {});
      });
    expect(await open()).toBe(403);
    expect(await open()).toBe(403);
    const printed = dev
      .output()
      .split('\n')
      .filter((line) => line.startsWith('baton dev: refused a WebSocket:'));
    expect(printed).toEqual([
      `baton dev: refused a WebSocket: baton dev refuses requests from pages on ${foreign}: only its own pages (${dev.origin}) may call it. If that page is yours, pass --allow-origin ${foreign}.`,
    ]);
  });

  it('serves the pages that hold its tokens unframed by other pages and uncached', async () => {
    for (const [url, meta] of [
      [`${dev.origin}/`, 'baton-crash-token'],
      [`${dev.inspector}/`, 'baton-token'],
      [`${dev.inspector}/_baton`, 'baton-token'],
    ] as const) {
      const page = await fetch(url);
      expect(await page.text()).toContain(`<meta name="${meta}"`);
      expect(page.headers.get('content-security-policy')).toBe("frame-ancestors 'none'");
      expect(page.headers.get('x-frame-options')).toBe('DENY');
      expect(page.headers.get('cache-control')).toBe('no-store');
    }
  });

  it('refuses a text/plain body with 400, as the deployed ingress does, and applies nothing', async () => {
    const response = await fetch(`${dev.origin}/ask`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: add1000,
    });
    expect(response.status).toBe(400);
    expect((await response.json()).error.message).toContain('content-type: application/json');
    expect(await count()).toBe(5);
  });

  it('lets pages on an origin given with --allow-origin call the app with CORS, not the inspector', async () => {
    expect(dev.output()).toContain(`trusts     pages on ${TRUSTED} (--allow-origin)`);
    const preflight = await fetch(`${dev.origin}/ask`, {
      method: 'OPTIONS',
      headers: { origin: TRUSTED, 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(TRUSTED);
    const asked = await fetch(`${dev.origin}/ask`, {
      method: 'POST',
      headers: { origin: TRUSTED, 'content-type': 'application/json' },
      body: JSON.stringify({ to: 'counter/c', name: 'add', payload: { n: 0 } }),
    });
    expect(asked.status).toBe(200);
    expect(asked.headers.get('access-control-allow-origin')).toBe(TRUSTED);
    expect(await asked.json()).toEqual({ value: 5 });
    const inspector = await fetch(`${dev.inspector}/_baton`, { headers: { origin: TRUSTED } });
    expect(inspector.status).toBe(403);
    expect(await inspector.text()).not.toContain('baton-token');
    // Another origin still is refused.
    const other = await fetch(`${dev.origin}/ask`, {
      method: 'POST',
      headers: { origin: 'http://localhost:5174', 'content-type': 'application/json' },
      body: JSON.stringify({ to: 'counter/c', name: 'add', payload: { n: 1000 } }),
    });
    expect(other.status).toBe(403);
    expect(await count()).toBe(5);
  });

  it("gives the app's page, where its users sign in, a token that arms a crash and does nothing else", async () => {
    const html = await (await fetch(`${dev.origin}/`)).text();
    const crashToken = /<meta name="baton-crash-token" content="([^"]+)">/.exec(html)?.[1];
    expect(crashToken).toMatch(/.{20}/);
    const inspector = await inspectorToken(dev.inspector);
    expect(html).not.toContain(inspector);
    expect(crashToken).not.toBe(inspector);
    const asPage = { 'x-baton-token': crashToken! };
    // Trusted code's doors stay shut to it: a credit as the system, a redrive, a workflow action.
    const add = { to: 'counter/c', name: 'add', payload: { n: 1000 } };
    // Not on the app's port, whose refusal says where the inspector is…
    const here = await postJson(`${dev.origin}/_baton/send?as=system`, add, asPage);
    expect(here.status).toBe(404);
    expect(here.body.error.message).toContain(`Open ${dev.inspector}/`);
    // …nor on the inspector's, which wants its own token.
    const credit = await postJson(`${dev.inspector}/_baton/send?as=system`, add, asPage);
    expect(credit.status).toBe(403);
    expect(credit.body.error.message).toContain('x-baton-token');
    for (const action of ['ask', 'redrive', 'history', 'workflow']) {
      expect((await postJson(`${dev.origin}/_baton/${action}`, {}, asPage)).status).toBe(404);
      expect((await postJson(`${dev.inspector}/_baton/${action}`, {}, asPage)).status).toBe(403);
    }
    // Nor does it open the inspector's live query.
    expect((await inspectorWith({ token: crashToken })).status).toBe('error');
    // The crash on the app's port passes the door: the app process answers it (in memory
    // here, it refuses).
    const crash = await postJson(`${dev.origin}/_baton/crash`, {}, asPage);
    expect(crash).toMatchObject({ status: 400, body: { error: { code: 'INVALID_STATE' } } });
    expect(await count()).toBe(5);
  });

  it("answers the inspector's live query only with this run's token", async () => {
    for (const args of [{}, { token: 'a guess' }]) {
      const refused = await inspectorWith(args);
      expect(refused.status).toBe('error');
      expect(refused.data).toBeUndefined();
    }
    const token = await inspectorToken(dev.inspector);
    const answered = await inspectorWith({ token });
    expect(answered.data?.actors.map((actor) => actor.id)).toEqual(['counter/c']);
    // Its own entry in the list of live queries does not show the token.
    expect(JSON.stringify(answered.data)).not.toContain(token);
  });

  it('has an app process that answers nothing that did not come through the port', async () => {
    // The app process's own loopback ports (its HTTP server and its WebSocket host): those
    // that the children of baton dev listen on.
    const children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(dev.child.pid)], {
      encoding: 'utf8',
    })
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean);
    const ports = execFileSync('ss', ['-Htlnp'], { encoding: 'utf8' })
      .split('\n')
      .filter((line) => children.some((pid) => line.includes(`pid=${pid},`)))
      .map((line) => Number(/127\.0\.0\.1:(\d+)/.exec(line)?.[1]));
    expect(ports).toHaveLength(2);
    const answers = await Promise.all(
      ports.map((p) =>
        raw(p, '/ask', { host: `127.0.0.1:${p}`, 'content-type': 'application/json' }, add1000),
      ),
    );
    // The HTTP server refuses; the WebSocket host takes upgrades only (426).
    expect(answers.map((answer) => answer.status).sort()).toEqual([403, 426]);
    const wsPort = ports[answers.findIndex((answer) => answer.status === 426)]!;
    const closed = await new Promise<{ code: number; frames: number }>((resolve) => {
      const socket = new WebSocket(`ws://127.0.0.1:${wsPort}`, ['baton.v1']);
      let frames = 0;
      socket.on('open', () =>
        socket.send(
          JSON.stringify({ v: 1, type: 'subscribe', id: 's', query: 'count', args: { key: 'c' } }),
        ),
      );
      socket.on('message', () => frames++);
      socket.on('close', (code) => resolve({ code, frames }));
    });
    expect(closed).toEqual({ code: 4401, frames: 0 });
    expect(await count()).toBe(5);
  });

  it("prints what --log-level lets through: a retried message's warning, not the app's info lines", async () => {
    // The adds above logged `added` at info (which baton dev prints by default).
    const sent = await postJson(`${dev.origin}/send`, {
      to: 'counter/failing',
      name: 'boom',
      payload: {},
      idempotencyKey: 'boom-1',
    });
    expect(sent.status).toBe(202);
    await expect
      .poll(() => dev.output(), { timeout: 10_000 })
      .toMatch(/\d\d:\d\d:\d\d warn +counter\/failing: message will be retried/);
    expect(dev.output()).not.toMatch(/\d\d:\d\d:\d\d info /);
  });
});
