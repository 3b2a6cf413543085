/**
 * `baton dev --backend local-aws` as a real process: it starts DynamoDB Local and ElasticMQ of
 * its own (from the emulator cache the test setup already filled, so nothing is downloaded),
 * runs the app on the AWS adapters behind the same one port, and on Ctrl-C stops the app before
 * the emulators: exit status 0, no error line, no emulator process left.
 */
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { defaultEmulatorCacheDir } from '@baton/cli';
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

let app: string;
let dev: DevProcess | undefined;

const ask = (name: string, payload: unknown) =>
  postJson(`${dev!.origin}/ask`, { to: 'counter/c', name, payload });

/** The emulator processes (JVMs and their watchdogs) that `pid` owns: they carry its marker. */
function emulatorsOwnedBy(pid: number): string[] {
  const table = execFileSync('ps', ['-ww', '-eo', 'pid=,args='], { encoding: 'utf8' });
  return table.split('\n').filter((line) => line.includes(`-Dbaton.emulator.owner=${pid} `));
}

beforeAll(async () => {
  app = copyFixtureApp();
  dev = await startDevProcess(
    [join(app, 'src/app.ts'), '--port', String(await freePort()), '--backend', 'local-aws'],
    {
      timeoutMs: 60_000,
      // The test setup's cache (the same folder the dev server would pick from the root).
      env: { BATON_EMULATOR_CACHE: defaultEmulatorCacheDir() },
      ownProcessGroup: true,
    },
  );
}, 70_000);

afterAll(async () => {
  await dev?.stop('SIGKILL');
  rmSync(app, { recursive: true, force: true });
});

describe('baton dev --backend local-aws', () => {
  it('runs on DynamoDB Local and ElasticMQ of its own', () => {
    const out = dev!.output();
    expect(out).toContain(
      'DynamoDB Local + ElasticMQ (in memory: state lasts until baton dev stops)',
    );
    // From the cache: Maven did not run.
    expect(out).not.toMatch(/Resolving /);
    // Each JVM, and the watchdog beside it.
    const names = emulatorsOwnedBy(dev!.child.pid!).map(
      (line) => /-Dbaton\.emulator=(\S+)/.exec(line)?.[1],
    );
    expect([...new Set(names)].sort()).toEqual(['dynamodb-local', 'elasticmq']);
  });

  it("answers the ingress's ask and send, applying a repeated send once", async () => {
    expect(await ask('add', { n: 2 })).toEqual({ status: 200, body: { value: 2 } });
    const send = () =>
      postJson(`${dev!.origin}/send`, {
        to: 'counter/c',
        name: 'add',
        payload: { n: 3 },
        idempotencyKey: 'add-3',
      });
    const sent = await send();
    expect(sent.status).toBe(202);
    const outcomeUrl = `${dev!.origin}/outcome/${encodeURIComponent(sent.body.messageId)}`;
    await expect.poll(async () => (await fetch(outcomeUrl)).status, { timeout: 10_000 }).toBe(200);
    expect(await (await fetch(outcomeUrl)).json()).toEqual({ outcome: { ok: true, value: 5 } });
    expect((await send()).body.messageId).toBe(sent.body.messageId);
    expect((await ask('add', { n: 0 })).body).toEqual({ value: 5 });
  });

  it('pushes live queries and the inspector over the same port', async () => {
    const client = new BatonClient({ url: dev!.origin.replace(/^http/, 'ws'), WebSocket });
    try {
      const counts: QueryState<number>[] = [];
      client.subscribe<number>('count', { key: 'c' }, (state) => counts.push(state));
      let inspector: InspectorSnapshot | undefined;
      const token = await inspectorToken(dev!.inspector);
      client.subscribe<InspectorSnapshot>('baton.inspector', { token }, (state) => {
        inspector = state.data;
      });
      await expect.poll(() => counts.at(-1)?.data, { timeout: 10_000 }).toBe(5);

      expect((await ask('add', { n: 1 })).body).toEqual({ value: 6 });
      // Pushed through DynamoDB Streams, not asked for.
      await expect.poll(() => counts.at(-1)?.data, { timeout: 10_000 }).toBe(6);
      await expect
        .poll(() => inspector?.actors.find((actor) => actor.id === 'counter/c')?.state, {
          timeout: 10_000,
        })
        .toEqual({ count: 6 });
      expect(inspector!.backend).toMatch(/^local-aws: DynamoDB table baton-dev-/);
      expect(inspector!.actorsListed).toBe('since-start');
      // …which the page says in a note above the actors.
      const page = await (await fetch(`${dev!.inspector}/_baton/inspector.js`)).text();
      expect(page).toContain('Only the actors committed since the app process started');
      expect(inspector!.turns.some((turn) => turn.actorId === 'counter/c')).toBe(true);
    } finally {
      client.close();
    }
  });

  it('names its inbox per run, and apart from its table, so a page elsewhere cannot send into it with a plain GET', async () => {
    // The table's name, which anything on this machine may list, does not name the queue.
    const target = await (await fetch(`${dev!.origin}/_baton/target`)).json();
    const queueName = new URL(target.inboxUrl).pathname
      .split('/')
      .at(-1)!
      .replace(/\.fifo$/, '');
    expect(target.table).toMatch(/^baton-dev-.*-[0-9a-f]{16}$/);
    expect(queueName).toMatch(/^baton-dev-.*-[0-9a-f]{16}$/);
    expect(queueName).not.toBe(target.table);
    // ElasticMQ's port, from its configuration file's name on its command line.
    const line = emulatorsOwnedBy(dev!.child.pid!).find((l) => l.includes('elasticmq-'))!;
    const sqs = `http://127.0.0.1:${/elasticmq-\d+-(\d+)\.conf/.exec(line)![1]}`;
    // What a page could guess: the app's folder. A GET is a request any page may send.
    const guess = `baton-dev-${basename(app).replace(/[^A-Za-z0-9_-]/g, '-')}.fifo`;
    const queueUrl = `${sqs}/000000000000/${guess}`;
    const sent = await fetch(
      `${sqs}/?Action=SendMessage&QueueUrl=${encodeURIComponent(queueUrl)}&MessageBody=x&MessageGroupId=counter%2Fc&MessageDeduplicationId=guess`,
    );
    expect(sent.status).toBe(400);
    expect(await sent.text()).toContain('NonExistentQueue');
    expect((await ask('add', { n: 0 })).body).toEqual({ value: 6 });
  });

  it('is operated by the baton commands with --local, as a deployment is', async () => {
    const baton = async (...argv: string[]) => {
      const out: string[] = [];
      const code = await runOps([...argv, '--local', dev!.origin, '--json'], {
        out: (line) => out.push(line),
        err: () => {},
        env: {},
        now: () => Date.now(),
      });
      expect(code, out.join('\n')).toBe(0);
      return JSON.parse(out.join('\n'));
    };
    const status = await baton('status');
    expect(status.table).toMatch(/^baton-dev-/);
    expect(status.queues.map((q: { name: string }) => q.name)).toEqual([
      'inbox',
      'inbox dead letters',
    ]);
    const count = (await ask('add', { n: 0 })).body.value;
    expect((await baton('actors', 'get', 'counter/c')).state).toEqual({ count });
    expect(
      (await baton('actors', 'list', 'counter')).actors.map((a: { id: string }) => a.id),
    ).toEqual(['counter/c']);

    // An actor paused with the baton commands shows among the inspector's paused actors (the
    // pause is a commit, which the change feed reports), and leaves them once resumed.
    const client = new BatonClient({ url: dev!.origin.replace(/^http/, 'ws'), WebSocket });
    try {
      let inspector: InspectorSnapshot | undefined;
      const token = await inspectorToken(dev!.inspector);
      client.subscribe<InspectorSnapshot>('baton.inspector', { token }, (state) => {
        inspector = state.data;
      });
      await baton('actors', 'pause', 'counter/c', '--yes', '--operator', 'dev-test');
      await expect
        .poll(() => inspector?.pausedActors, { timeout: 10_000 })
        .toEqual([{ id: 'counter/c', at: expect.any(Number), by: 'dev-test', parked: 0 }]);
      expect(inspector!.pausedCount).toBe(1);
      expect(inspector!.actors.find((a) => a.id === 'counter/c')?.paused).toMatchObject({
        by: 'dev-test',
      });
      await baton('actors', 'resume', 'counter/c', '--yes', '--operator', 'dev-test');
      await expect.poll(() => inspector?.pausedCount, { timeout: 10_000 }).toBe(0);
    } finally {
      client.close();
    }
  });

  it('stops the app, then the emulators, on Ctrl-C: exit 0, no error, no emulator left', async () => {
    const pid = dev!.child.pid!;
    expect(await dev!.stop('SIGINT')).toBe(0);
    const output = dev!.output();
    expect(output).toContain('baton dev: stopping');
    const afterCtrlC = output.slice(output.indexOf('baton dev: stopping'));
    expect(afterCtrlC).not.toMatch(/failed|"level":"error"|Error/);
    // Not even ended by the Ctrl-C itself: the dev server stopped them, after the app.
    expect(afterCtrlC).not.toMatch(/ended \([^)]*\) while in use/);
    expect(dev!.stderr()).not.toMatch(/failed|Error/);
    expect(emulatorsOwnedBy(pid)).toEqual([]);
  });
});
