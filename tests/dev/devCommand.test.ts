/**
 * `baton dev` as a real process: one port for the page, the HTTP ingress and the app; state in
 * its data directory across reloads, crashes and restarts; a saved source file reloads the app;
 * Ctrl-C (SIGINT) exits 0, also when a package manager passes it on a second time.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  copyFixtureApp,
  type DevProcess,
  freePort,
  inspectorAction,
  postJson,
  runDevToExit,
  startDevProcess,
} from './devProcess.ts';

let app: string;
let dataDir: string;
let port: number;
let dev: DevProcess | undefined;

const args = () => [join(app, 'src/app.ts'), '--port', String(port), '--data-dir', dataDir];
const ask = (name: string, payload: unknown) =>
  postJson(`${dev!.origin}/ask`, { to: 'counter/c', name, payload });

beforeAll(async () => {
  app = copyFixtureApp();
  dataDir = mkdtempSync(join(tmpdir(), 'baton-dev-data-'));
  port = await freePort();
  dev = await startDevProcess(args());
});

afterAll(async () => {
  await dev?.stop('SIGKILL');
  rmSync(app, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
});

describe('baton dev', () => {
  it('says where everything is in its readiness lines', () => {
    expect(dev!.origin).toBe(`http://127.0.0.1:${port}`);
    const out = dev!.output();
    // Its own port (a free one here, the test's startDevProcess asks so; the next by default).
    expect(out).toContain(`inspector  ${dev!.inspector}/\n`);
    expect(dev!.inspector).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(dev!.inspector).not.toBe(dev!.origin);
    expect(out).toContain(`websocket  ws://127.0.0.1:${port}`);
    expect(out).toContain(
      `workflows  POST http://127.0.0.1:${port}/workflows/<name>/start, GET http://127.0.0.1:${port}/workflows/<name>/<id>`,
    );
    expect(out).toMatch(
      /data +\S*baton-dev-data-\S* \(embedded backend; state survives restarts\)/,
    );
  });

  it("serves the app's page with the WebSocket URL of the same port", async () => {
    const html = await (await fetch(`${dev!.origin}/`)).text();
    expect(html).toContain(`<meta name="baton-url" content="ws://127.0.0.1:${port}">`);
    // No request for /favicon.ico, whose 404 the page's console would show: its icon is empty,
    // and the inspector's too.
    expect(html).toContain('<link rel="icon" href="data:,">');
    expect(html).toContain(`<meta name="baton-inspector" content="${dev!.inspector}/">`);
    const inspector = await (await fetch(`${dev!.inspector}/`)).text();
    expect(inspector).toContain('<link rel="icon" href="data:,">');
    expect(inspector).toContain(
      `<meta name="baton-url" content="ws://${new URL(dev!.inspector).host}">`,
    );
    const script = await fetch(`${dev!.origin}/page.js`);
    expect(script.status).toBe(200);
    expect(await script.text()).toContain('counter page, socket');
  });

  it('shows on the page why the page does not build, not a blank page, until it builds again', async () => {
    const pagePath = join(app, 'src/web/page.tsx');
    const page = readFileSync(pagePath, 'utf8');
    const pageScript = async () => {
      const response = await fetch(`${dev!.origin}/page.js`);
      return { type: response.headers.get('content-type'), text: await response.text() };
    };
    writeFileSync(
      pagePath,
      `import { nothing } from './missing.ts';
${page}`,
    );
    await expect
      .poll(async () => (await pageScript()).text, { timeout: 15_000 })
      .toContain('the page does not build');
    const broken = await pageScript();
    expect(broken.type).toMatch(/^text\/javascript/);
    // Run as a browser would: the error goes to the console and fills the body.
    const logged: unknown[] = [];
    const body = {
      shown: [] as { textContent: string }[],
      replaceChildren(...nodes: { textContent: string }[]) {
        this.shown = nodes;
      },
    };
    const fakeDocument = { body, createElement: () => ({ textContent: '', style: {} }) };
    new Function('document', 'console', 'addEventListener', broken.text)(
      fakeDocument,
      { error: (line: unknown) => logged.push(line) },
      () => undefined,
    );
    expect(String(logged[0])).toMatch(
      /^the page does not build; fix it, save and reload:\n.*missing\.ts/s,
    );
    expect(body.shown[0]?.textContent).toBe(logged[0]);

    writeFileSync(pagePath, page);
    await expect
      .poll(async () => (await pageScript()).text, { timeout: 15_000 })
      .toContain('counter page, socket');
  });

  it("answers the Lambda ingress's routes and shapes", async () => {
    expect(await ask('add', { n: 2 })).toEqual({ status: 200, body: { value: 2 } });
    const sent = await postJson(`${dev!.origin}/send`, {
      to: 'counter/c',
      name: 'add',
      payload: { n: 3 },
      idempotencyKey: 'add-3',
    });
    expect(sent.status).toBe(202);
    const outcomeUrl = `${dev!.origin}/outcome/${encodeURIComponent(sent.body.messageId)}`;
    await expect.poll(async () => (await fetch(outcomeUrl)).status, { timeout: 5_000 }).toBe(200);
    expect(await (await fetch(outcomeUrl)).json()).toEqual({ outcome: { ok: true, value: 5 } });
    // The same refusals as on Lambda.
    const noKey = await postJson(`${dev!.origin}/send`, {
      to: 'counter/c',
      name: 'add',
      payload: { n: 1 },
    });
    expect(noKey.status).toBe(400);
    expect((await ask('add', { n: -1 })).body.error.code).toBe('REJECTED');
    expect((await ask('add', { n: 'x' })).status).toBe(400);
  });

  it("answers the ingress's workflow routes: a start, then the instance's status and output", async () => {
    const started = await postJson(`${dev!.origin}/workflows/greet/start`, {
      id: 'g-1',
      input: { name: 'ada' },
    });
    expect(started.status).toBe(202);
    expect(started.body.id).toBe('g-1');
    const statusUrl = `${dev!.origin}/workflows/greet/g-1`;
    await expect
      .poll(async () => (await (await fetch(statusUrl)).json()).status, { timeout: 5_000 })
      .toBe('completed');
    expect((await (await fetch(statusUrl)).json()).output).toBe('hello ada');
  });

  it("sends an internal message from the inspector's form as trusted code only", async () => {
    const set = { to: 'counter/internal', name: 'set', payload: { n: 7 } };
    // From any client, the inspector's form too, an internal handler is refused.
    expect((await postJson(`${dev!.origin}/ask`, set)).body.error.code).toBe('FORBIDDEN');
    expect((await inspectorAction(dev!.inspector, 'ask', set)).body.error.code).toBe('FORBIDDEN');
    expect(await inspectorAction(dev!.inspector, 'ask?as=system', set)).toEqual({
      status: 200,
      body: { value: 7 },
    });
    const sent = await inspectorAction(dev!.inspector, 'send?as=system', {
      ...set,
      payload: { n: 8 },
      idempotencyKey: 'set-8',
    });
    expect(sent.status).toBe(202);
    // Only with the run's token, and only as the system.
    expect((await postJson(`${dev!.inspector}/_baton/ask?as=system`, set)).status).toBe(403);
    const other = await inspectorAction(dev!.inspector, 'ask?as=admin', set);
    expect(other.status).toBe(400);
    expect(other.body.error.message).toContain('?as=system');
  });

  it("prints the app's ctx.log lines, and a failing handler's error with its stack", async () => {
    expect((await ask('add', { n: 0 })).status).toBe(200);
    expect(dev!.output()).toMatch(/\d\d:\d\d:\d\d info +counter\/c: added n=0\n/);
    const failing = postJson(`${dev!.origin}/ask`, {
      to: 'counter/failing',
      name: 'boom',
      payload: {},
    });
    failing.catch(() => {});
    await expect
      .poll(() => dev!.output(), { timeout: 10_000 })
      .toMatch(
        /warn +counter\/failing: message will be retried .*error="unexpected error: boom: fixed in v2"/,
      );
    // The stack, one frame a line, points into the app's source.
    expect(dev!.output()).toMatch(/\n {4}Error: boom: fixed in v2\n {4}( {4})?at .*app\.ts:\d+/);
    // Out of attempts, the ask is told DEAD_LETTERED, and where dev redrives it.
    const { status, body } = await failing;
    expect(status).toBe(422);
    expect(body.error).toMatchObject({
      code: 'DEAD_LETTERED',
      details: {
        hint: 'baton dev: the inspector (on its own port: the inspector line baton dev printed) shows the dead letter, and redrives or purges it',
      },
    });
  });

  it("purges from the inspector a letter whose redrive it refuses, the refusal naming the inspector's purge and force-redrive", async () => {
    // The letter of the ask above, told DEAD_LETTERED: a plain redrive is refused.
    const actorId = 'counter/failing';
    const history = await inspectorAction(dev!.inspector, 'history', { actorId });
    const letter = history.body.history.find(
      (entry: { kind: string }) => entry.kind === 'dead letter',
    );
    const messageId: string = letter.id;
    const redrive = await inspectorAction(dev!.inspector, 'redrive', { actorId, messageId });
    expect(redrive.status).toBe(400);
    const { message } = redrive.body.error;
    expect(message).toContain(
      'purge it (the purge button on that dead letter in the inspector, or POST /_baton/purge on its port)',
    );
    expect(message).toContain(
      'redrive it with force (the redrive button on that dead letter in the inspector, clicked again when it offers to redrive anyway, or POST /_baton/redrive on its port with "force": true',
    );
    // Not the baton commands, which refuse baton dev's embedded backend.
    expect(message).not.toContain('baton dead-letters');
    const body = { actorId, messageId };
    // Only on the inspector's port, with this run's token, as its other actions.
    expect((await postJson(`${dev!.inspector}/_baton/purge`, body)).status).toBe(403);
    const wrong = { 'x-baton-token': 'not-the-token' };
    expect((await postJson(`${dev!.inspector}/_baton/purge`, body, wrong)).status).toBe(403);
    expect((await postJson(`${dev!.origin}/_baton/purge`, body)).status).toBe(404);
    const bad = await inspectorAction(dev!.inspector, 'purge', { actorId });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain(
      'purge takes {"actorId": "type/key", "messageId": "…"}',
    );
    expect(await inspectorAction(dev!.inspector, 'purge', body)).toEqual({
      status: 200,
      body: { purged: messageId },
    });
    // Gone: not kept any more, nor purged twice.
    const after = await inspectorAction(dev!.inspector, 'history', { actorId });
    expect(after.body.history.map((entry: { kind: string }) => entry.kind)).not.toContain(
      'dead letter',
    );
    const again = await inspectorAction(dev!.inspector, 'purge', body);
    expect(again.status).toBe(404);
    expect(again.body.error.message).toContain(`keeps no dead letter ${messageId}`);
  });

  it('reads an outcome by the actor and idempotency key it was sent with', async () => {
    const sent = await postJson(`${dev!.origin}/send`, {
      to: 'counter/by-key',
      name: 'add',
      payload: { n: 4 },
      idempotencyKey: 'add-4',
    });
    expect(sent.status).toBe(202);
    const outcomeUrl = `${dev!.origin}/outcome?to=counter/by-key&idempotencyKey=add-4`;
    await expect.poll(async () => (await fetch(outcomeUrl)).status, { timeout: 5_000 }).toBe(200);
    expect(await (await fetch(outcomeUrl)).json()).toEqual({ outcome: { ok: true, value: 4 } });
    const unknown = await fetch(`${dev!.origin}/outcome?to=counter/by-key&idempotencyKey=other`);
    expect(unknown.status).toBe(404);
  });

  it('refuses an oversized body with 413, telling its size as it was sent', async () => {
    const pad = 'x'.repeat(3 * 1024 * 1024);
    const body = { to: 'counter/c', name: 'add', payload: { n: 1, pad }, idempotencyKey: 'big' };
    const refused = await postJson(`${dev!.origin}/send`, body);
    expect(refused.status).toBe(413);
    const size = Buffer.byteLength(JSON.stringify(body));
    expect(refused.body.error.message).toContain(`the body is ${size} bytes`);
    expect(refused.body.error.details).toEqual({ size, limit: 256_000 });
  });

  it('stops reading a body past its limit, answering 413 while the client still sends', async () => {
    // A body of no declared length that would go on for ever: chunks until an answer comes.
    const chunk = Buffer.alloc(64 * 1024, 'x');
    const limit = 64 * 1024 * 1024;
    const answer = await new Promise<{ status: number; body: string; sent: number }>(
      (resolve, reject) => {
        let sent = 0;
        let answered = false;
        const req = request(
          `${dev!.origin}/send`,
          { method: 'POST', headers: { 'content-type': 'application/json' } },
          (response) => {
            answered = true;
            let body = '';
            response.on('data', (data) => (body += data));
            response.on('end', () => resolve({ status: response.statusCode!, body, sent }));
            response.on('error', reject);
          },
        );
        req.on('error', () => {});
        const pump = () => {
          while (!answered && sent < limit) {
            sent += chunk.length;
            if (!req.write(chunk)) return void req.once('drain', pump);
          }
          // Only an unbounded reader gets here: what it answers after the end is too late.
          if (!answered) req.end();
        };
        req.write('{"to": "counter/c", "name": "add", "payload": {"pad": "');
        pump();
      },
    );
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body).error.code).toBe('MESSAGE_TOO_LARGE');
    // Answered while the client was still sending, long before it would have stopped.
    expect(answer.sent).toBeLessThan(16 * 1024 * 1024);
    expect((await ask('add', { n: 0 })).status).toBe(200);
  });

  it('fires durable timers when they are due', async () => {
    const timed = (name: string, payload: unknown) =>
      postJson(`${dev!.origin}/ask`, { to: 'counter/timed', name, payload });
    expect((await timed('later', { n: 7, inMs: 100 })).status).toBe(200);
    await expect
      .poll(async () => (await timed('add', { n: 0 })).body.value, { timeout: 5_000 })
      .toBe(7);
  });

  it('reloads the app when a source file changes, keeping its state', async () => {
    expect((await ask('version', {})).body).toEqual({ value: 'v1' });
    // A workflow whose run throws pauses; the reload replays it on the fixed code at once.
    await postJson(`${dev!.origin}/workflows/label/start`, { id: 'l-1', input: { name: 'ada' } });
    const label = async () => (await fetch(`${dev!.origin}/workflows/label/l-1`)).json();
    await expect.poll(async () => (await label()).status, { timeout: 5_000 }).toBe('paused');
    expect(dev!.output()).toMatch(/workflow paused: its run threw[^\n]*TypeError: label: fixed/);

    writeFileSync(join(app, 'src/version.ts'), "export const VERSION = 'v2';\n");
    await expect
      .poll(async () => (await ask('version', {})).body.value, { timeout: 15_000 })
      .toBe('v2');
    expect(dev!.output()).toContain('version.ts changed: reloading the app');
    expect((await ask('add', { n: 0 })).body).toEqual({ value: 5 });
    await expect.poll(async () => (await label()).output, { timeout: 5_000 }).toBe('ada:3');
    expect(dev!.output()).toMatch(
      /replaying the paused workflow instances on this code.*label\/l-1/,
    );
  });

  it('restarts a killed app process, losing nothing that was committed', async () => {
    expect((await inspectorAction(dev!.inspector, 'crash', { message: 'add' })).status).toBe(202);
    // The app dies right after committing this turn, before acknowledging it.
    const sent = await postJson(`${dev!.origin}/send`, {
      to: 'counter/c',
      name: 'add',
      payload: { n: 10 },
      idempotencyKey: 'crash-10',
    });
    expect(sent.status).toBe(202);
    await expect
      .poll(() => dev!.output(), { timeout: 10_000 })
      .toMatch(/ended \(SIGKILL\); restarting it/);
    const outcomeUrl = `${dev!.origin}/outcome/${encodeURIComponent(sent.body.messageId)}`;
    await expect.poll(async () => (await fetch(outcomeUrl)).status, { timeout: 10_000 }).toBe(200);
    // Applied once: 5 + 10.
    expect((await ask('add', { n: 0 })).body).toEqual({ value: 15 });
  });

  it('exits 0 on Ctrl-C, and a new run finds the state in the data directory', async () => {
    const before = dev!.output().length;
    expect(await dev!.stop('SIGINT')).toBe(0);
    expect(dev!.output().slice(before)).not.toMatch(/Error|ELIFECYCLE/);
    dev = await startDevProcess(args());
    expect((await ask('add', { n: 1 })).body).toEqual({ value: 16 });
    expect(await dev.stop('SIGINT')).toBe(0);
  });

  it('exits 0 when a package manager passes the Ctrl-C on, so that it arrives twice at once', async () => {
    // `pnpm dev` in a terminal: the terminal's SIGINT, then the one pnpm forwards to its script.
    dev = await startDevProcess(args());
    dev.child.kill('SIGINT');
    expect(await dev.stop('SIGINT')).toBe(0);
    expect(dev.output()).not.toContain('stopping at once');
  });
});

describe('baton dev on an app that does not start', () => {
  let broken: string;
  beforeAll(() => {
    broken = copyFixtureApp();
  });
  afterAll(() => rmSync(broken, { recursive: true, force: true }));

  /** The fixture's entry, edited by `edit`, as `name` beside it. */
  const entryWith = (name: string, edit: (source: string) => string) => {
    const source = readFileSync(join(broken, 'src/app.ts'), 'utf8');
    const entry = join(broken, 'src', name);
    writeFileSync(entry, edit(source));
    return entry;
  };
  const noAdvice = (output: string) => {
    // It stops, so it does not ask to save; and nothing of Node's uncaught-exception printout.
    expect(output).not.toContain('save');
    expect(output).not.toMatch(/^\s+at |BatonError|Node\.js v/m);
  };

  it("prints defineApp's refusal in one line, as the other startup errors, and exits 2", async () => {
    const entry = entryWith('twice.ts', (source) =>
      source.replace('defineApp({ actors: [Counter]', 'defineApp({ actors: [Counter, Counter]'),
    );
    const { code, output } = await runDevToExit([entry]);
    expect(code, output).toBe(2);
    expect(output).toBe(
      [
        'the app failed to start: invalid app: two actor types are named "counter"',
        'baton: the app did not start (see above): fix it and run baton dev again',
        '',
      ].join('\n'),
    );
    noAdvice(output);
  });

  it('prints what any other throw of the entry says, with its stack into the app', async () => {
    const entry = entryWith('throws.ts', (source) =>
      source.replace(
        'export default defineApp',
        "throw new Error('no app today');\nexport default defineApp",
      ),
    );
    const { code, output } = await runDevToExit([entry]);
    expect(code, output).toBe(2);
    expect(output).toMatch(
      /^the app failed to start: the entry threw while it loaded: Error: no app today\n {4}at .*throws\.ts:\d+/,
    );
    expect(output).not.toContain('save');
  });

  it("says what an entry without a default export must be, not naming baton dev's own entry", async () => {
    const entry = entryWith('named.ts', (source) =>
      source.replace('export default defineApp', 'export const app = defineApp'),
    );
    const { code, output } = await runDevToExit([entry]);
    expect(code, output).toBe(2);
    expect(output).toMatch(
      /^the app does not build:\nNo matching export in "[^"]*named\.ts" for import "default": the entry must end with export default defineApp\(\{ actors, queries \}\)/,
    );
    expect(output).not.toContain('baton-dev-app');
    noAdvice(output);
  });
});
