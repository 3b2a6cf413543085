/**
 * Incident drills on DynamoDB Local and ElasticMQ, through the `baton` CLI only (its entry
 * function, in-process): a poison message is dead-lettered, seen, fixed and redriven once; an
 * actor is paused under load and resumed. Every message is counted.
 * With BATON_DRILL_OUT=<file>, the commands and what they printed are written there.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LocalSqsEventSource } from '@baton/aws/local';
import { encodeEnvelope, INGRESS } from '@baton/core/adapter';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  createOpsDeployment,
  flagsOf,
  hintWith,
  type OpsDeployment,
  pumpUntil as pump,
  runBaton,
  shellLine,
} from './fixtures/opsDeployment.ts';
import { faults, runs, Tally } from './fixtures/tallyApp.ts';

const APP = join(import.meta.dirname, 'fixtures', 'tallyApp.ts');

describe('incident drills through the baton CLI on DynamoDB Local and ElasticMQ', () => {
  let deployment: OpsDeployment;
  let source: LocalSqsEventSource;

  beforeEach(async () => {
    deployment = await createOpsDeployment('ops');
    source = deployment.worker([Tally]);
    runs.clear();
    faults.poisoned = true;
  });

  /** Runs `baton <argv>` against the drill's deployment; returns its exit code and output. */
  async function baton(...argv: string[]) {
    const run = await runBaton([...argv, ...flagsOf(deployment.options), '--operator', 'drill']);
    const file = process.env.BATON_DRILL_OUT;
    if (file) appendFileSync(file, `$ baton ${shellLine(argv)}\n${run.out}\n\n`);
    return run;
  }

  /** Lets the worker run until the inbox is empty and `done()` holds. */
  const pumpUntil = (done: () => Promise<boolean>) =>
    pump(deployment.queue, source, done, 'the drill did not settle');

  const entriesOf = async (id: string): Promise<string[]> => {
    const got = await baton('actors', 'get', id, '--json');
    // A record without state yet (an actor paused before its first turn) reads as the initial one.
    return got.code === 0 ? (got.json().state?.entries ?? []) : [];
  };

  it('lists a deploy’s dead letters by the code the deploy left inside them', async () => {
    // A message of a handler the running code does not have yet (newer code sent it).
    const envelope = {
      id: 'ingress:newer-1',
      from: INGRESS,
      seq: 0,
      to: 'tally/deploy',
      name: 'subtract',
      payload: {},
      sentAt: Date.now(),
    };
    await deployment.queue.send([
      { group: envelope.to, dedupeId: 'newer-1', body: encodeEnvelope(envelope) },
    ]);
    const listed = async (...filter: string[]) =>
      (await baton('dead-letters', 'list', ...filter, '--json')).json().deadLetters;
    await pumpUntil(async () => (await listed()).length === 1);

    // Kept as DEAD_LETTERED, after retries (RETRYABLE), of an UNKNOWN_MESSAGE: each code finds it.
    const [letter] = await listed('--code', 'UNKNOWN_MESSAGE');
    expect(letter).toMatchObject({
      actor: 'tally/deploy',
      name: 'subtract',
      code: 'UNKNOWN_MESSAGE',
    });
    expect(letter.error).toMatch(/has no handler "subtract"/);
    const ids = async (code: string) =>
      (await listed('--code', code)).map((l: { messageId: string }) => l.messageId);
    expect(await ids('RETRYABLE')).toEqual([letter.messageId]);
    expect(await ids('DEAD_LETTERED')).toEqual([letter.messageId]);
    expect(await ids('INVALID_PAYLOAD')).toEqual([]);
  });

  it('dead-letters a poison message, shows it, and applies it exactly once on redrive after the fix, its batch-mates untouched', async () => {
    const sent = ['m1', 'm2', 'poison', 'm4', 'm5'];
    for (const entry of sent) {
      const { code } = await baton(
        'send',
        'tally/drill',
        'add',
        JSON.stringify({ entry }),
        '--app',
        APP,
      );
      expect(code).toBe(0);
    }
    await pumpUntil(async () => (await entriesOf('tally/drill')).length === 4);

    // A dead letter is a problem: status says ATTENTION and exits 3, --json or not.
    const status = await baton('status', '--json');
    expect(status.code).toBe(3);
    expect(status.json()).toMatchObject({ deadLetters: 1, healthy: false, queueDeadLetters: 0 });
    const human = await baton('status');
    expect(human.code).toBe(3);
    expect(human.out).toMatch(/dead letters\s+1/);

    const list = await baton(
      'dead-letters',
      'list',
      '--type',
      'tally',
      '--code',
      'RETRYABLE',
      '--json',
    );
    const [letter, ...others] = list.json().deadLetters;
    expect(others).toEqual([]);
    expect(letter).toMatchObject({
      actor: 'tally/drill',
      name: 'add',
      code: 'RETRYABLE',
      attempts: 3,
    });
    expect((await baton('dead-letters', 'list')).out).toMatch(
      /tally\/drill\s+add\s+RETRYABLE\s+3\s.*\s+the poison entry breaks add$/m,
    );
    // A client's send, whose client waited for no answer: nothing bars its redrive.
    expect((await baton('dead-letters', 'show', 'tally/drill', letter.messageId)).out).toMatch(
      /payload\s+\{"entry":"poison"\}\n[\s\S]*cause\s+RETRYABLE: the poison entry breaks add\nredrivable yes\s*$/,
    );
    const show = await baton('dead-letters', 'show', 'tally/drill', letter.messageId, '--json');
    expect(show.json().envelope.payload).toEqual({ entry: 'poison' });
    expect(await entriesOf('tally/drill')).toEqual(['m1', 'm2', 'm4', 'm5']);

    // The fix ships; the operator looks first, then redrives — twice, as a nervous one would.
    faults.poisoned = false;
    expect(
      (await baton('dead-letters', 'redrive', '--all', '--type', 'tally', '--dry-run')).out,
    ).toMatch(/^would redrive 1 dead letter\(s\):\nACTOR\s+MESSAGEID\ntally\/drill\s+'ingress:/);
    const dry = await baton(
      'dead-letters',
      'redrive',
      '--all',
      '--type',
      'tally',
      '--dry-run',
      '--json',
    );
    expect(dry.json().redrive).toEqual([{ actor: 'tally/drill', messageId: letter.messageId }]);
    const redrive = await baton(
      'dead-letters',
      'redrive',
      'tally/drill',
      letter.messageId,
      '--yes',
    );
    expect(redrive.code).toBe(0);
    expect(redrive.err).toMatch(/"by":"drill","action":"dead-letters redrive"/);
    expect(
      (await baton('dead-letters', 'redrive', 'tally/drill', letter.messageId, '--yes')).code,
    ).toBe(0);
    await pumpUntil(async () => (await entriesOf('tally/drill')).length === 5);

    expect(await entriesOf('tally/drill')).toEqual(['m1', 'm2', 'm4', 'm5', 'poison']);
    // Batch-mates ran once each; the poison message three failed times and one applied.
    expect(Object.fromEntries(runs)).toEqual({ m1: 1, m2: 1, poison: 4, m4: 1, m5: 1 });
    expect((await baton('dead-letters', 'list', '--json')).json().deadLetters).toEqual([]);
    expect((await baton('outcome', letter.messageId, '--json')).json().outcome).toEqual({
      ok: true,
    });
    expect((await baton('status', '--json')).json()).toMatchObject({
      deadLetters: 0,
      healthy: true,
    });
    const healthy = await baton('status');
    expect(healthy.out).toMatch(/health\s+OK/);
    expect(healthy.code).toBe(0);
    expect((await baton('outcome', letter.messageId)).out).toBe('ok null');
    expect((await baton('actors', 'get', 'tally/drill')).out).toMatch(
      /dead letters\s+0\n[\s\S]*state\s+\{"entries":\["m1","m2","m4","m5","poison"\]\}/,
    );
    expect((await baton('actors', 'list', 'tally')).out).toMatch(
      /tally\/drill\s+\d+\s+\d+\s+false/,
    );
    // Nothing left to redrive: the command fails, saying so.
    const again = await baton('dead-letters', 'redrive', 'tally/drill', letter.messageId, '--yes');
    expect(again.code).toBe(1);
    // It names the command that tells which, with this drill's target flags.
    expect(again.err).toContain(
      `keeps no dead letter ${letter.messageId}: it was redriven or purged already, or never dead-lettered; ${hintWith(deployment.options, `outcome '${letter.messageId}'`)} tells which`,
    );
  });

  it('pauses an actor under load: nothing of it is applied while others go on, and on resume every message is applied once, in order', async () => {
    const hot = Array.from({ length: 12 }, (_, i) => `h${i}`);
    const cold = Array.from({ length: 12 }, (_, i) => `c${i}`);
    for (const entry of hot.slice(0, 2)) {
      await baton('send', 'tally/hot', 'add', JSON.stringify({ entry }), '--app', APP);
    }
    await source.pollOnce();
    for (const entry of hot.slice(2, 4)) {
      await baton('send', 'tally/hot', 'add', JSON.stringify({ entry }), '--app', APP);
    }
    // The worker runs while the operator pauses: the pause lands before, amid or after its turn.
    const busy = source.pollOnce();
    const pause = await baton('actors', 'pause', 'tally/hot', '--yes');
    expect(pause.code, pause.err).toBe(0);
    expect(pause.err).toMatch(/"by":"drill","action":"actors pause","actor":"tally\/hot"/);
    await busy;
    const beforePause = await entriesOf('tally/hot');
    for (let i = 4; i < hot.length; i++) {
      await baton('send', 'tally/hot', 'add', JSON.stringify({ entry: hot[i] }), '--app', APP);
      await baton('send', 'tally/cold', 'add', JSON.stringify({ entry: cold[i] }), '--app', APP);
    }
    await pumpUntil(async () => (await entriesOf('tally/cold')).length === 8);

    // Paused: the hot actor applied at most what it had before the pause; the cold one went on.
    const paused = (await baton('actors', 'get', 'tally/hot', '--json')).json();
    expect(paused.paused).toMatchObject({ by: 'drill' });
    expect((await baton('actors', 'get', 'tally/hot')).out).toMatch(/paused\s+since \S+ by drill/);
    expect((await baton('timers', 'list', 'tally/hot')).out).toBe(
      'tally/hot has no pending timers',
    );
    expect(paused.state?.entries ?? []).toEqual(beforePause);
    expect(hot.slice(0, beforePause.length)).toEqual(beforePause);
    expect(paused.parkedMessages).toBe(hot.length - beforePause.length);
    expect(await entriesOf('tally/cold')).toEqual(cold.slice(4));
    expect((await baton('status', '--json')).json()).toMatchObject({
      deadLetters: 0,
      parked: { messages: hot.length - beforePause.length, actors: 1 },
    });
    expect((await baton('dead-letters', 'list', '--json')).json().deadLetters).toEqual([]);
    // What was sent after the pause never ran. (A turn in flight as the pause landed may have
    // run a handler; its commit lost to the pause, so that run left nothing.)
    for (const entry of hot.slice(4)) expect(runs.get(entry)).toBeUndefined();

    const resumed = await baton('actors', 'resume', 'tally/hot', '--yes');
    expect(resumed.code).toBe(0);
    expect(resumed.err).toMatch(/"action":"actors resume"/);
    await pumpUntil(async () => (await entriesOf('tally/hot')).length === hot.length);

    const after = (await baton('actors', 'get', 'tally/hot', '--json')).json();
    expect(after.state.entries).toEqual(hot);
    expect(after).toMatchObject({ paused: null, parkedMessages: 0, deadLetters: 0 });
    // Applied once each, in order (the state lists every entry once), and what arrived while
    // paused ran exactly once, after the resume.
    for (const entry of [...hot.slice(4), ...cold.slice(4)]) expect(runs.get(entry)).toBe(1);
    expect(runs.size).toBe(hot.length + 8);

    // Both actors, a page of one at a time.
    const listed: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const more = cursor ? ['--cursor', cursor] : [];
      const page = (
        await baton('actors', 'list', 'tally', '--limit', '1', ...more, '--json')
      ).json();
      expect(page.actors.length).toBeLessThanOrEqual(1);
      listed.push(...page.actors.map((a: { id: string }) => a.id));
      cursor = page.cursor;
      pages++;
    } while (cursor);
    expect(listed.sort()).toEqual(['tally/cold', 'tally/hot']);
    expect(pages).toBeGreaterThanOrEqual(2);
    // A cursor no page printed is a usage error that says so.
    const garbled = await baton('actors', 'list', 'tally', '--cursor', 'garbage');
    expect(garbled.code).toBe(2);
    expect(garbled.err).toMatch(/"garbage" is not a cursor a page of actors returned/);
  });
});
