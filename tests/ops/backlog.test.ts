/**
 * `baton backlog` on DynamoDB Local and ElasticMQ: the actors stuck (a message failing at the
 * head of the inbox) or holding messages — parked at a pause, timers due, sends still in their
 * senders' outboxes that they have not applied — failing first, then most waiting; read as if
 * ten minutes later (the CLI's clock), with no sweeper or timer relay running.
 */
import { join } from 'node:path';
import { runOps } from '@baton/cli/ops';
import { beforeEach, describe, expect, it } from 'vitest';
import { faults, Note } from './fixtures/notesApp.ts';
import {
  batonJson,
  createOpsDeployment,
  flagsOf,
  hintWith,
  type OpsDeployment,
  pumpUntil,
} from './fixtures/opsDeployment.ts';

const APP = join(import.meta.dirname, 'fixtures', 'notesApp.ts');
const LATER = 10 * 60_000;

describe('baton backlog', () => {
  let deployment: OpsDeployment;

  beforeEach(async () => {
    deployment = await createOpsDeployment('backlog');
    faults.poisoned = true;
  });

  /** `baton backlog <argv>` with the CLI's clock `LATER` on: exit code and output. */
  async function backlog(...argv: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const io = {
      out: (l: string) => out.push(l),
      err: (l: string) => err.push(l),
      env: {},
      now: () => Date.now() + LATER,
    };
    const code = await runOps(['backlog', ...argv, ...flagsOf(deployment.options)], io);
    return { code, out: out.join('\n'), err: err.join('\n') };
  }

  it('lists the actors stuck or holding messages, failing first, and says what it does not count', async () => {
    const baton = (...argv: string[]) => batonJson(deployment, [...argv, '--app', APP]);
    const source = deployment.worker([Note]);
    await baton('send', 'note/a', 'remind', '{"id":"r","inMs":60000}');
    // A send note/b applied: note/a's outbox keeps it until the sweeper retires it.
    await baton('send', 'note/a', 'pass', '{"to":"b","entry":"passed"}');
    // Paused before its first turn (no record yet): --force.
    await batonJson(deployment, ['actors', 'pause', 'note/p', '--force']);
    await baton('send', 'note/p', 'add', '{"entry":"h1"}');
    await baton('send', 'note/p', 'add', '{"entry":"h2"}');
    await pumpUntil(deployment.queue, source);
    // Three sends note/s committed (after the parked ones: most waiting beats oldest) that note/hot never received (no drain ran).
    const sentAt = Date.now();
    const send = (seq: number) => ({
      id: `note/s:${seq}`,
      from: 'note/s',
      seq,
      ...(seq > 1 ? { prev: seq - 1 } : {}),
      to: 'note/hot',
      name: 'add',
      payload: { entry: `w${seq}` },
      sentAt,
    });
    await deployment.store.commit({
      expectedVer: 0,
      record: {
        id: 'note/s',
        ver: 1,
        state: { entries: [] },
        inboxOffset: '0',
        marks: {},
        sentSeq: 3,
      },
      outbox: [
        { actorId: 'note/s', seq: 1, envelopes: [send(1), send(2), send(3)], createdAt: sentAt },
      ],
      idempotency: [],
    });
    // note/stuck's inbox stops at a message whose handler keeps failing; "after" waits behind it.
    await baton('send', 'note/stuck', 'add', '{"entry":"poison"}');
    await baton('send', 'note/stuck', 'add', '{"entry":"after"}');
    for (let i = 0; i < 40 && !(await deployment.store.load('note/stuck'))?.failing; i++) {
      await source.pollOnce();
    }

    const json = await backlog('--json');
    expect(json.code, json.err).toBe(0);
    const result = JSON.parse(json.out);
    expect(result.actors.map((a: { actor: string }) => a.actor)).toEqual([
      'note/stuck',
      'note/hot',
      'note/p',
      'note/a',
    ]);
    const [stuck, hot, parked, timers] = result.actors;
    expect(stuck).toMatchObject({
      waiting: 0,
      oldestWaitingAgeMs: null,
      failing: { handler: 'add', error: { code: 'RETRYABLE' } },
    });
    expect(stuck.failing.attempts).toBeGreaterThanOrEqual(1);
    // Its first failure's time, as the worker kept it (the CLI reads ten minutes later), an ISO
    // time as every time in --json.
    const since = (await deployment.store.load('note/stuck'))?.failing?.since;
    expect(stuck.failing.since).toBe(new Date(since!).toISOString());
    expect(Date.parse(stuck.failing.since)).toBeGreaterThanOrEqual(sentAt);
    expect(hot).toMatchObject({ waiting: 3, undrainedSends: 3, parked: 0, failing: null });
    expect(hot.oldestWaitingAgeMs).toBeGreaterThanOrEqual(LATER);
    expect(parked).toMatchObject({ waiting: 2, parked: 2, undrainedSends: 0 });
    expect(timers).toMatchObject({ waiting: 1, timersDue: 1, undrainedSends: 0 });
    expect(result.found).toBe(4);
    expect(result.notCounted[0]).toMatch(/^messages in the inbox queue, per actor: SQS counts/);

    const top = await backlog('--top', '2');
    expect(top.code, top.err).toBe(0);
    expect(top.out).toMatch(
      /^actors +4 with a message failing.*\(the first 2; --top shows more\)/m,
    );
    // The command names the first actor listed, so that it runs as pasted (no <type/key>).
    expect(top.out).toContain(
      `: failing first, then most waiting — ${hintWith(deployment.options, 'actors get note/stuck')} shows the first\n`,
    );
    expect(top.out).toMatch(
      /^note\/stuck +0 +— +failing for 10m \d+s, \d attempt\(s\), add — RETRYABLE: /m,
    );
    expect(top.out).toMatch(/^note\/hot +3 +10m \d+s +— +0 +0 +3 +0$/m);
    expect(top.out).not.toMatch(/^note\/p /m);
    expect(top.out).toMatch(/^not counted: messages in the inbox queue, per actor/m);

    // A count an older Baton wrote, without its time: listed still, its age unknown.
    const counted = (await deployment.store.load('note/stuck'))!;
    const { since: _, ...count } = counted.failing!;
    await deployment.store.commit({
      record: { ...counted, ver: counted.ver + 1, failing: count },
      expectedVer: counted.ver,
      outbox: [],
      idempotency: [],
    });
    const older = await backlog('--top', '1');
    expect(older.code, older.err).toBe(0);
    expect(older.out).toMatch(
      /^note\/stuck +0 +— +age unknown, \d attempt\(s\), add — RETRYABLE: /m,
    );
  }, 120_000);

  it('reads at most --limit items of the table for failing messages, and says so', async () => {
    await batonJson(deployment, ['send', 'note/x', 'add', '{"entry":"poison"}', '--app', APP]);
    const source = deployment.worker([Note]);
    for (let i = 0; i < 40 && !(await deployment.store.load('note/x'))?.failing; i++) {
      await source.pollOnce();
    }
    await deployment.store.commit({
      expectedVer: 0,
      record: {
        id: 'note/y',
        ver: 1,
        state: { entries: [] },
        inboxOffset: '0',
        marks: {},
        sentSeq: 0,
      },
      outbox: [],
      idempotency: [],
    });
    const bounded = JSON.parse((await backlog('--limit', '1', '--json')).out);
    expect(bounded.notCounted).toContain(
      'failing messages of actors past the first 1 items of the table (--limit raises it)',
    );
    const whole = JSON.parse((await backlog('--json')).out);
    expect(whole.actors.map((a: { actor: string }) => a.actor)).toEqual(['note/x']);
    expect(whole.notCounted.join(' ')).not.toMatch(/--limit raises it/);

    const bad = await backlog('--top', '0');
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--top takes a whole number from 1 to 1000, not "0"');
  }, 120_000);
});
