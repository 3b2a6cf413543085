/**
 * Workflow drills on DynamoDB Local and ElasticMQ, through the `baton` CLI (its entry function,
 * in-process): instances listed by status and shown with their steps; one signalled on, one
 * cancelled (its reservation released once, counted on the shelf), one terminated (nothing
 * released), one paused by a deploy that no longer replays it (shown with its next replay) and
 * resumed after the fix; and
 * each refusal says what to do instead.
 * With BATON_DRILL_OUT=<file>, the commands and what they printed are written there.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LocalSqsEventSource } from '@baton/aws/local';
import { replayWorkflow } from '@baton/core';
import { Client } from '@baton/core/client';
import { shellQuote } from '@baton/core/engine';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  createOpsDeployment,
  flagsOf,
  hintWith,
  type OpsDeployment,
  pumpUntil as pump,
  runBaton,
  shellLine,
  shellWords,
} from './fixtures/opsDeployment.ts';
import { Bulk, code, Shelf, Ship } from './fixtures/shipApp.ts';

const APP = join(import.meta.dirname, 'fixtures', 'shipApp.ts');

describe('workflow drills through the baton CLI on DynamoDB Local and ElasticMQ', () => {
  let deployment: OpsDeployment;
  let source: LocalSqsEventSource;
  /** A new worker, as a deploy starts: nothing of the old one's memory (its warm runs) is kept. */
  const deploy = () => {
    source = deployment.worker([Shelf, Ship.actor, Bulk.actor]);
  };

  beforeEach(async () => {
    deployment = await createOpsDeployment('wfops');
    code.renamed = false;
    deploy();
  });

  /** The target options these drills pass: they name no dead-letter queue. */
  const target = () => {
    const { 'dead-letter-queue-url': _, ...options } = deployment.options;
    return options;
  };
  /** A hint's `baton <command>`: with the target flags every command here runs with. */
  const hint = (command: string) => hintWith(target(), command);

  async function baton(...argv: string[]) {
    const run = await runBaton([...argv, ...flagsOf(target()), '--operator', 'drill']);
    const file = process.env.BATON_DRILL_OUT;
    if (file) appendFileSync(file, `$ baton ${shellLine(argv)}\n${run.out}\n${run.err}\n\n`);
    return run;
  }

  /** Lets the worker run until the inbox is empty and `done()` holds. */
  const pumpUntil = (done: () => Promise<boolean>) =>
    pump(deployment.queue, source, done, 'the drill did not settle');

  const statusOf = async (id: string) => {
    const shown = await baton('workflows', 'show', 'ship', id, '--json');
    return shown.code === 0 ? (shown.json().status as string) : `exit ${shown.code}`;
  };
  /** Trusted code that starts `ship` instances on the deployment. */
  const shipClient = () =>
    new Client({
      actors: [Shelf, Ship.actor],
      store: deployment.store,
      queue: deployment.queue,
    }).asSystem();
  const shelf = async () =>
    ((await deployment.store.load(Shelf.ref('main').id))?.state ?? {}) as {
      stock: number;
      releases: number;
    };

  it('lists instances by status, shows their steps, signals one on, cancels one with its release, resumes one paused by a deploy', async () => {
    const client = shipClient();
    for (const id of ['a', 'b', 'c', 'd']) await client.start(Ship, id, { qty: 2 });
    await pumpUntil(async () => (await shelf()).stock === 2);
    await pumpUntil(async () => (await statusOf('d')) === 'waiting');

    const waiting = await baton('workflows', 'list', 'ship', '--status', 'waiting', '--json');
    expect(waiting.code).toBe(0);
    expect(
      waiting
        .json()
        .instances.map((i: { id: string }) => i.id)
        .sort(),
    ).toEqual(['a', 'b', 'c', 'd']);
    expect(
      (await baton('workflows', 'list', 'ship', '--status', 'completed', '--json')).json(),
    ).toEqual({ instances: [] });
    // Every workflow of the app, in a table.
    expect((await baton('workflows', 'list', '--app', APP)).out).toMatch(
      /^WORKFLOW\s+ID\s+STATUS\s+STEPS[\s\S]*\nship\s+a\s+waiting\s+2\s/,
    );
    // Past --limit: the next page of the workflow it stopped in, and the workflows it did not
    // look at, each with the command that lists them as this listing asked.
    const firstPage = (
      await baton('workflows', 'list', '--app', APP, '--limit', '2', '--json')
    ).json();
    expect(firstPage).toMatchObject({ cursorOf: 'ship', unlisted: ['bulk'] });
    const lines = (await baton('workflows', 'list', '--app', APP, '--limit', '2')).out.split('\n');
    expect(lines).toContain(
      `more: ${hint(`workflows list ship --limit 2 --cursor ${firstPage.cursor}`)}`,
    );
    expect(lines).toContain(
      `not looked at, past --limit 2: bulk — ${hint('workflows list bulk --limit 2')}`,
    );
    const nextPage = await baton(
      'workflows',
      'list',
      'ship',
      '--limit',
      '2',
      '--cursor',
      firstPage.cursor,
      '--json',
    );
    expect(
      [...firstPage.instances, ...nextPage.json().instances]
        .map((i: { id: string }) => i.id)
        .sort(),
    ).toEqual(['a', 'b', 'c', 'd']);

    const shown = await baton('workflows', 'show', 'ship', 'a', '--json');
    expect(shown.json()).toMatchObject({
      workflow: 'ship',
      id: 'a',
      status: 'waiting',
      progress: { stage: 'packing', qty: 2 },
      history: [
        {
          seq: 0,
          kind: 'call',
          name: 'shelf.reserve',
          state: 'done',
          value: { left: expect.any(Number) },
        },
        { seq: 1, kind: 'event', name: 'packed', state: 'pending' },
      ],
    });
    expect((await baton('workflows', 'show', 'ship', 'a')).out).toMatch(
      /instance\s+ship\/a\nstatus\s+waiting\nprogress\s+\{"stage":"packing","qty":2\}\n[\s\S]*\n0\s+call\s+shelf\.reserve\s+shelf\/main\s+done\s[\s\S]*\n1\s+event\s+packed\s+—\s+pending/,
    );

    // a: a dry run sends nothing; the signal completes it, with an audit line.
    const dry = await baton(
      'workflows',
      'signal',
      'ship',
      'a',
      'packed',
      '{"box":"B-1"}',
      '--dry-run',
    );
    expect(dry.out).toBe('would signal ship/a (waiting, 2 steps)');
    expect((await deployment.queue.approximateCounts()).visible).toBe(0);
    const signal = await baton(
      'workflows',
      'signal',
      'ship',
      'a',
      'packed',
      '{"box":"B-1"}',
      '--app',
      APP,
    );
    expect(signal.code).toBe(0);
    expect(signal.err).toMatch(
      /baton audit \{.*"by":"drill","action":"workflows signal","workflow":"ship","id":"a","event":"packed","messageId"/,
    );
    expect(signal.err).not.toContain('is not waiting for');
    await pumpUntil(async () => (await statusOf('a')) === 'completed');
    expect((await baton('workflows', 'show', 'ship', 'a', '--json')).json().output).toEqual({
      box: 'B-1',
    });
    // The app's event schema checks the payload at the door.
    const bad = await baton(
      'workflows',
      'signal',
      'ship',
      'b',
      'packed',
      '{"box":7}',
      '--app',
      APP,
    );
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/payload\.box/);

    // b: refused without --yes (no terminal to ask), then cancelled; its stock comes back once.
    const unconfirmed = await baton('workflows', 'cancel', 'ship', 'b');
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.err).toMatch(/pass --yes to confirm/);
    const cancel = await baton('workflows', 'cancel', 'ship', 'b', '--reason', 'drill', '--yes');
    expect(cancel.code).toBe(0);
    expect(cancel.err).toMatch(
      /"action":"workflows cancel","workflow":"ship","id":"b","reason":"drill"/,
    );
    await pumpUntil(async () => (await statusOf('b')) === 'cancelled');
    await pumpUntil(async () => (await shelf()).releases === 1);
    expect(await shelf()).toEqual({ stock: 4, releases: 1 });
    const ended = (await baton('workflows', 'show', 'ship', 'b', '--json')).json();
    expect(ended.error).toMatchObject({
      code: 'CANCELLED',
      message: 'workflow instance b was cancelled: drill',
    });
    expect(ended.history.at(-1)).toMatchObject({
      kind: 'call',
      name: 'shelf.release',
      state: 'done',
    });
    const late = await baton('workflows', 'cancel', 'ship', 'b', '--yes');
    expect(late.code).toBe(1);
    expect(late.err).toMatch(/ship\/b is cancelled already/);

    // d: terminated, after a dry run that sends nothing: it ends at once, no compensation runs.
    const wouldEnd = await baton('workflows', 'terminate', 'ship', 'd', '--dry-run');
    expect(wouldEnd.out).toBe('would terminate ship/d (waiting, 2 steps)');
    expect((await deployment.queue.approximateCounts()).visible).toBe(0);
    const terminate = await baton(
      'workflows',
      'terminate',
      'ship',
      'd',
      '--reason',
      'drill',
      '--yes',
    );
    expect(terminate.code, terminate.err).toBe(0);
    expect(terminate.err).toMatch(
      /"action":"workflows terminate","workflow":"ship","id":"d","reason":"drill"/,
    );
    await pumpUntil(async () => (await statusOf('d')) === 'terminated');
    const terminated = (await baton('workflows', 'show', 'ship', 'd', '--json')).json();
    expect(terminated.history.map((s: { name: string }) => s.name)).toEqual([
      'shelf.reserve',
      'packed',
    ]);
    expect(await shelf()).toEqual({ stock: 4, releases: 1 });

    // c: a deploy that renamed the event pauses it on its next message; the fix resumes it.
    expect((await baton('workflows', 'resume', 'ship', 'c')).err).toBe(
      `baton workflows resume: ship/c is waiting, not paused: only a paused instance resumes, one that paused because its code did not replay its history (a deploy's) or because its run threw an unexpected error. ${hint('workflows show ship c')} shows its status and steps`,
    );
    code.renamed = true;
    deploy();
    expect((await baton('workflows', 'signal', 'ship', 'c', 'packed', '{"box":"B-3"}')).code).toBe(
      0,
    );
    await pumpUntil(async () => (await statusOf('c')) === 'paused');
    expect(
      (await baton('workflows', 'list', 'ship', '--status', 'paused', '--json')).json().instances,
    ).toMatchObject([{ id: 'c', status: 'paused', error: 'NON_DETERMINISTIC' }]);
    // baton status names it, as no paused actor shows it (its record is not paused, its state
    // is), with the commands to see why and to resume it, and asks for attention.
    const status = await baton('status');
    expect(status.code, status.err).toBe(3);
    expect(status.out.split('\n')).toContain(
      `paused workflows    1 instance(s): ship/c (version 1) — baton workflows show ship c says why; baton workflows resume ship c once code that replays it runs`,
    );
    expect(status.out).toMatch(/^paused {14}0 actor\(s\)$/m);
    expect(status.out).toContain(
      `health              ATTENTION — 1 workflow instance(s) paused: their code does not replay their history (baton workflows list ship --status paused): `,
    );
    expect((await baton('status', '--json')).json().paused).toEqual({
      actors: [],
      workflows: [
        {
          id: 'wf-ship/c',
          workflow: 'ship',
          instance: 'c',
          version: '1',
          error: expect.stringMatching(/^workflow "ship" \(code version 1\) does not replay/),
          threw: false,
        },
      ],
      complete: true,
    });
    const paused = (await baton('workflows', 'show', 'ship', 'c')).out;
    expect(paused).toMatch(
      /status\s+paused[\s\S]*\npaused\s+workflow "ship" \(code version 1\) does not replay its history: .*and resume it with: .*\nnext replay\s+\S+Z, on its own/,
    );
    expect(paused).toContain(`and resume it with: ${hint('workflows resume ship c')}\n`);
    // It is replayed again on its own a minute after it paused, in case a deploy was rolling out.
    const { nextReplayAt } = (await baton('workflows', 'show', 'ship', 'c', '--json')).json();
    const inMs = Date.parse(nextReplayAt) - Date.now();
    expect(inMs).toBeGreaterThan(0);
    expect(inMs).toBeLessThanOrEqual(60_000);
    expect((await baton('timers', 'cancel', 'wf-ship/c', 'wf:recheck', '--yes')).code).toBe(0);
    expect(
      (await baton('workflows', 'show', 'ship', 'c', '--json')).json().nextReplayAt,
    ).toBeNull();
    expect((await baton('workflows', 'show', 'ship', 'c')).out).toMatch(
      /next replay\s+none scheduled: only a resume replays it now/,
    );
    // Resumed before the fix, it replays on the same code and pauses again: the resume says so.
    const early = await baton('workflows', 'resume', 'ship', 'c');
    expect(early.code, early.err).toBe(0);
    expect(early.out.split('\n').at(-1)).toBe(
      `follow it: it replays its history in its next turn, and pauses again if the code running still cannot replay it: ${hint('workflows show ship c')} says which`,
    );
    await pumpUntil(async () => true);
    const again = (await baton('workflows', 'show', 'ship', 'c', '--json')).json();
    expect(again.status).toBe('paused');
    expect(again.nextReplayAt).not.toBeNull();
    code.renamed = false;
    deploy();
    const resume = await baton('workflows', 'resume', 'ship', 'c', '--json');
    expect(resume.code).toBe(0);
    expect(resume.json()).toMatchObject({ action: 'resume', workflow: 'ship', id: 'c' });
    await pumpUntil(async () => (await statusOf('c')) === 'completed');
    const done = (await baton('workflows', 'show', 'ship', 'c', '--json')).json();
    expect(done.output).toEqual({ box: 'B-3' });
    expect(done).not.toHaveProperty('nextReplayAt');
    expect((await baton('status')).out).toMatch(/^paused workflows {4}0 instance\(s\)$/m);

    // Unknown instances and names say what to do.
    const missing = await baton('workflows', 'show', 'ship', 'zz');
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/workflow ship has no instance zz: /);
    expect(missing.err.endsWith(`list them with ${hint('workflows list ship')}`)).toBe(true);
    expect((await baton('workflows', 'show', 'wf-ship/a', 'a')).code).toBe(2);
    expect((await baton('workflows', 'list', 'ship', '--status', 'asleep')).code).toBe(2);
    // A misspelt workflow: refused with the nearest by --app, else its empty list says so.
    const typo = await baton('workflows', 'list', 'shp', '--app', APP);
    expect(typo.code).toBe(2);
    expect(typo.err).toContain(
      `the app defines no workflow "shp" (it has ship, bulk). Did you mean ${hint('workflows list ship')}?`,
    );
    expect((await baton('workflows', 'list', 'shp')).out).toBe(
      "no instances of shp (--app <entry> checks the name against the app's workflows)",
    );
    expect(await shelf()).toEqual({ stock: 4, releases: 1 });
  });

  it('keeps the cancel of an instance paused by a deploy, shown, and releases its stock once it replays', async () => {
    const client = shipClient();
    await client.start(Ship, 'p', { qty: 1 });
    await pumpUntil(async () => (await statusOf('p')) === 'waiting');
    code.renamed = true;
    deploy();
    expect((await baton('workflows', 'signal', 'ship', 'p', 'packed', '{"box":"B-9"}')).code).toBe(
      0,
    );
    await pumpUntil(async () => (await statusOf('p')) === 'paused');

    expect(
      (await baton('workflows', 'cancel', 'ship', 'p', '--reason', 'drill', '--yes')).code,
    ).toBe(0);
    await pumpUntil(async () => (await statusOf('p')).length > 0);
    const shown = await baton('workflows', 'show', 'ship', 'p');
    // Its compensation is code the paused run cannot replay: it waits for the fix.
    expect(shown.out).toMatch(/status\s+paused/);
    expect(shown.out).toMatch(
      /\nending\s+cancelled \(workflow instance p was cancelled: drill\): its compensations run, then it ends cancelled, once its code replays/,
    );
    expect(shown.out).toMatch(/\nnext replay\s+\S+Z, on its own/);
    expect(await shelf()).toEqual({ stock: 9, releases: 0 });

    code.renamed = false;
    deploy();
    expect((await baton('workflows', 'resume', 'ship', 'p')).code).toBe(0);
    await pumpUntil(async () => (await statusOf('p')) === 'cancelled');
    expect(await shelf()).toEqual({ stock: 10, releases: 1 });
    const ended = (await baton('workflows', 'show', 'ship', 'p', '--json')).json();
    expect(ended).not.toHaveProperty('nextReplayAt');
    expect(ended).not.toHaveProperty('ending');
    expect((await deployment.store.listTimers(Ship.ref('p').id)).map((t) => t.id)).not.toContain(
      'wf:recheck',
    );
  });

  it('resumes every paused instance of a workflow with --all, after a dry run lists them', async () => {
    const client = shipClient();
    for (const id of ['a1', 'a2', 'a3']) await client.start(Ship, id, { qty: 1 });
    await pumpUntil(async () => (await statusOf('a3')) === 'waiting');
    code.renamed = true;
    deploy();
    // Two of them take an event their deployed code does not replay, and pause.
    for (const id of ['a1', 'a2']) {
      expect((await baton('workflows', 'signal', 'ship', id, 'packed', '{"box":"B"}')).code).toBe(
        0,
      );
    }
    await pumpUntil(async () => (await statusOf('a2')) === 'paused');
    await pumpUntil(async () => (await statusOf('a1')) === 'paused');

    const dry = await baton('workflows', 'resume', 'ship', '--all', '--dry-run');
    expect(dry.code).toBe(0);
    expect(dry.out).toMatch(/^would resume 2 paused instance\(s\) of ship: a[12], a[12]$/m);
    expect(await statusOf('a1')).toBe('paused');
    const one = await baton('workflows', 'resume', 'ship', '--all', '--limit', '1', '--dry-run');
    expect(one.out).toMatch(/^would resume 1 paused instance\(s\) of ship: a[12]$/m);
    expect(one.out).toMatch(/^more may be paused past the first 1 found/m);
    const withId = await baton('workflows', 'resume', 'ship', 'a1', '--all');
    expect(withId.code).not.toBe(0);
    expect(withId.err).toMatch(/--all resumes every paused instance of ship: give no id/);
    const limited = await baton('workflows', 'resume', 'ship', 'a1', '--limit', '1');
    expect(limited.err).toMatch(/--limit counts the instances --all resumes/);
    const keyed = await baton('workflows', 'resume', 'ship', '--all', '--key', 'k-1');
    expect(keyed.err).toMatch(/--key names one message, and --all sends one to each/);

    code.renamed = false;
    deploy();
    const resumed = await baton('workflows', 'resume', 'ship', '--all', '--json');
    expect(resumed.code).toBe(0);
    expect(
      resumed
        .json()
        .resumed.map((r: { id: string }) => r.id)
        .sort(),
    ).toEqual(['a1', 'a2']);
    for (const id of ['a1', 'a2']) {
      await pumpUntil(async () => (await statusOf(id)) === 'completed');
    }
    expect(await statusOf('a3')).toBe('waiting');
    const again = await baton('workflows', 'resume', 'ship', '--all');
    expect(again.out).toBe('no instance of ship is paused: nothing to resume');
  });

  it('shows the compensations that failed of an instance that ended with them, and what to do', async () => {
    await shipClient().start(Ship, 'big', { qty: 150 });
    await pumpUntil(async () => (await statusOf('big')) === 'waiting');
    expect((await baton('workflows', 'cancel', 'ship', 'big', '--yes')).code).toBe(0);
    await pumpUntil(async () => (await statusOf('big')) === 'cancelled');

    const shown = await baton('workflows', 'show', 'ship', 'big');
    expect(shown.out).toMatch(
      /\ncompensations failed\s+1: REJECTED: a shelf takes back 100 at most, not 150\. What they undo stays done: fix the cause, then do each undo yourself \(docs\/operations\.md, CompensationFailuresAlarm\)\n/,
    );
    // The history names the undo that failed and the actor it called.
    expect(shown.out).toMatch(/\n\d+\s+call \(undo\)\s+shelf\.release\s+shelf\/main\s+failed\s/);
    const [undo] = (await baton('workflows', 'show', 'ship', 'big', '--json'))
      .json()
      .history.filter((s: { undo?: true }) => s.undo);
    expect(undo).toMatchObject({ kind: 'call', name: 'shelf.release', to: 'shelf/main' });
    // The reservation stays: nothing released it.
    expect(await shelf()).toEqual({ stock: -140, releases: 0 });
  });

  it("shows an instance's input and the code version it paused on, and how to run a failed one again", async () => {
    const client = shipClient();
    await client.start(Ship, 'zero', { qty: 0 });
    await client.start(Ship, 'bug', { qty: -1 });
    await pumpUntil(async () => (await statusOf('zero')) === 'failed');
    await pumpUntil(async () => (await statusOf('bug')) === 'paused');

    // Its run threw in its first turn: no code replayed it, the one it paused on is named.
    const paused = await baton('workflows', 'show', 'ship', 'bug');
    expect(paused.out).toMatch(/^code version\s+1$/m);
    expect(paused.out).toMatch(/^input\s+\{"qty":-1\}$/m);
    // A paused run's deadline stands; an ended one's is gone.
    expect(paused.out).toMatch(/^times out\s+\d{4}-\d\d-\d\dT[\d:.]+Z$/m);
    expect(paused.out).toMatch(/^paused\s+workflow "ship" \(code version 1\) threw /m);
    expect((await baton('workflows', 'show', 'ship', 'bug', '--json')).json()).toMatchObject({
      version: '1',
      input: { qty: -1 },
    });

    const failed = await baton('workflows', 'show', 'ship', 'zero');
    expect(failed.out).toMatch(/^input\s+\{"qty":0\}$/m);
    expect(failed.out).not.toMatch(/^times out/m);
    const start = hint(`send wf-ship/<new id> start '{"input":{"qty":0}}' --app <entry>`);
    expect(failed.out).toContain(
      `\nrun again     a failed instance does not run again (resume takes only a paused one): start a new one, under a new id, with its input (--json has it whole), from the app's code (client.start) or with ${start}\n`,
    );
    expect((await baton('workflows', 'resume', 'ship', 'zero')).err).toMatch(/is failed already/);
    // The command, its placeholders filled in, starts one.
    const words = shellWords(start.replace('<new id>', 'zero-2').replace('<entry>', APP));
    expect((await runBaton(words.slice(1))).code).toBe(0);
    await pumpUntil(async () => (await statusOf('zero-2')) === 'failed');
    expect((await baton('workflows', 'show', 'ship', 'zero-2', '--json')).json().input).toEqual({
      qty: 0,
    });
  });

  it('prints its follow-up command with the target flags it was given, so the hint runs as copied on the same deployment', async () => {
    await shipClient().start(Ship, 'h', { qty: 1 });
    await pumpUntil(async () => (await statusOf('h')) === 'waiting');

    const {
      table,
      'queue-url': queueUrl,
      'dynamodb-endpoint': dynamodb,
      'sqs-endpoint': sqs,
    } = target();
    const signal = await baton('workflows', 'signal', 'ship', 'h', 'packed', '{"box":"B-9"}');
    expect(signal.code).toBe(0);
    const hint = `baton workflows show ship h --table ${table} --queue-url ${queueUrl} --dynamodb-endpoint ${dynamodb} --sqs-endpoint ${sqs}`;
    expect(signal.out.split('\n').at(-1)).toBe(`follow it: ${hint}`);
    // Copied as printed (no flag of this test's added), it shows the instance signalled.
    const followed = await runBaton(hint.split(' ').slice(1));
    expect(followed.code).toBe(0);
    expect(followed.out).toMatch(/^status\s+\S+/m);
    expect(followed.out).toContain('ship');
  });

  it('refuses, without --app, an event the instance does not wait for, and keeps the one sent with --force as a dead letter', async () => {
    await shipClient().start(Ship, 'e', { qty: 1 });
    await pumpUntil(async () => (await statusOf('e')) === 'waiting');

    // A typo of the event: the door cannot check it without the app, and its worker would hold
    // the instance's inbox on it for minutes. Refused, nothing sent, and its nearest wait named.
    const refused = await baton('workflows', 'signal', 'ship', 'e', 'pakced', '{"box":"B-5"}');
    expect(refused.code).toBe(2);
    expect(refused.err.split('\n')[0]).toBe(
      `baton workflows signal: ship/e waits for "packed", not "pakced", and without --app the CLI cannot check the name: an event its code does not know waits at the head of wf-ship/e's inbox for minutes (retried, then kept as a dead letter), holding every message sent after it, a corrected signal too. Nothing was sent. Did you mean ${hint(`workflows signal ship e packed '{"box":"B-5"}'`)}? Pass --app <entry> to check the name and payload, or --force to send it as it is (an event may be sent before the run waits for it)`,
    );
    expect((await deployment.queue.approximateCounts()).visible).toBe(0);
    // A dry run is refused alike: it says what the command would do.
    expect(
      (await baton('workflows', 'signal', 'ship', 'e', 'pakced', '{"box":"B-5"}', '--dry-run'))
        .code,
    ).toBe(2);

    // --force sends it as it is, with the notes that it went unchecked and is not waited for.
    const signal = await baton(
      'workflows',
      'signal',
      'ship',
      'e',
      'pakced',
      '{"box":"B-5"}',
      '--force',
    );
    expect(signal.code).toBe(0);
    expect(signal.out.split('\n').at(-1)).toBe(`follow it: ${hint('workflows show ship e')}`);
    expect(signal.err).toContain(
      `baton: without --app, neither the event "pakced" nor its payload is checked before it is sent: a workflow that declares its events refuses one it does not take at its worker (retried, then kept as a dead letter of wf-ship/e: ${hint('workflows show ship e')} lists it), and one that declares none holds any event until a wait for it comes; pass --app <entry> to check it first`,
    );
    // The instance waits for another event: said, since a misspelt one would be held for good.
    expect(signal.err).toContain(
      'baton: ship/e is not waiting for "pakced" now (its open waits: packed): if the workflow takes it, it is held until a wait for it comes, so check its name',
    );
    await pumpUntil(async () => (await baton('dead-letters', 'list', '--json')).json().total === 1);

    const shown = await baton('workflows', 'show', 'ship', 'e');
    expect(shown.out).toMatch(/^status\s+waiting$/m);
    expect(shown.out).toMatch(
      /^dead letters\s+1 message\(s\) it did not apply: signal \(INVALID_PAYLOAD: .+\) — see /m,
    );
    // Its one dead letter, named by its id, quoted for the shell.
    const [letter] = (await baton('dead-letters', 'list', '--json')).json().deadLetters;
    expect(shown.out).toContain(
      ` — see ${hint(`dead-letters show wf-ship/e ${shellQuote(letter.messageId)}`)}`,
    );
    expect((await baton('workflows', 'show', 'ship', 'e', '--json')).json()).toMatchObject({
      deadLetters: [{ messageId: letter.messageId }],
      parkedMessages: 0,
    });
    // With the app, the typo is refused at the door: nothing is sent.
    const checked = await baton('workflows', 'signal', 'ship', 'e', 'pakced', '{}', '--app', APP);
    expect(checked.code).not.toBe(0);
    expect(checked.err).not.toMatch(/without --app/);
    // Its refusal alone: no note that the event would be held.
    expect(checked.err).not.toMatch(/held until a wait/);
  });

  it('shows the whole history of an instance whose oldest steps moved out of its record into pages', async () => {
    const { store, queue } = deployment;
    const client = new Client({ actors: [Bulk.actor], store, queue }).asSystem();
    await client.start(Bulk, 'big', {});
    const done = async () =>
      (await baton('workflows', 'show', 'bulk', 'big', '--json')).json().status === 'completed';
    await pumpUntil(done);

    const record = await store.load(Bulk.ref('big').id);
    const state = record?.state as { sealed?: { pages: number }; journal: unknown[] };
    expect(state.sealed?.pages).toBeGreaterThanOrEqual(1);
    expect(state.journal.length).toBeLessThan(8);
    const shown = (await baton('workflows', 'show', 'bulk', 'big', '--json')).json();
    expect(shown.steps).toBe(8);
    expect(shown.history.map((s: { seq: number; name: string }) => [s.seq, s.name])).toEqual(
      Array.from({ length: 8 }, (_, i) => [i, `chunk-${i}`]),
    );
    expect(shown.history[0].value).toBe('0'.repeat(30_000));
    expect((await baton('workflows', 'list', 'bulk', '--json')).json().instances).toMatchObject([
      { id: 'big', status: 'completed', steps: 8 },
    ]);

    // Exported whole (JSON, --json or not), the history replays with the code; without its
    // pages it does not, and the refusal says what to pass.
    const exported = await baton('workflows', 'export', 'bulk', 'big');
    expect(exported.code).toBe(0);
    const { workflow: name, id, state: kept, paged } = JSON.parse(exported.out);
    expect([name, id]).toEqual(['bulk', 'big']);
    expect(kept).toEqual(state);
    expect(paged.length + kept.journal.length).toBe(8);
    expect(await replayWorkflow(Bulk, kept, { paged })).toEqual({
      outcome: 'completed',
      commands: 8,
    });
    await expect(replayWorkflow(Bulk, kept)).rejects.toThrow(
      /entries in pages of their own, but 0 were given: pass every page's entries \(replayWorkflow's `paged`, as `baton workflows export` writes them\)/,
    );
  });

  it('shows an instance that continued as new by its current run, and exports that run to replay', async () => {
    const { store, queue } = deployment;
    const client = new Client({ actors: [Bulk.actor], store, queue }).asSystem();
    await client.start(Bulk, 'looped', { again: 1 });
    const done = async () =>
      (await baton('workflows', 'show', 'bulk', 'looped', '--json')).json().status === 'completed';
    await pumpUntil(done);

    const shown = await baton('workflows', 'show', 'bulk', 'looped', '--json');
    expect(shown.json()).toMatchObject({ status: 'completed', continued: 1, steps: 8 });
    expect((await baton('workflows', 'show', 'bulk', 'looped')).out).toMatch(
      /\ncontinued\s+as new 1 time\(s\): started, steps and history are this run's\n/,
    );
    // The export is the current run's, its pages with it: it replays to its end.
    const { state: kept, paged } = JSON.parse(
      (await baton('workflows', 'export', 'bulk', 'looped')).out,
    );
    expect(kept.input).toEqual({ again: 0 });
    expect(await replayWorkflow(Bulk, kept, { paged })).toEqual({
      outcome: 'completed',
      commands: 8,
    });
  });
});
