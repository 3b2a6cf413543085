import { batonCommand as plain, shellQuote } from '@baton/core/engine';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { OpsContext } from './OpsContext.ts';
import type { QueueHealth } from './queues.ts';
import { readStatus, status as statusCommand, UNHEALTHY_EXIT } from './status.ts';
import type { Target } from './target.ts';

/** The inbox as the queues read: its age is CloudWatch's, which the emulators have not. */
const read = vi.hoisted(() => ({ inbox: undefined as unknown as QueueHealth }));
vi.mock('./queues.ts', () => ({
  readQueues: async () => ({ queues: [read.inbox], ages: 'cloudwatch', unread: [] }),
}));

/** A deployment with nothing kept: no dead letter, timer due, undrained send or paused actor. */
const target = {
  names: { table: 't', inboxUrl: 'inbox', deadLetterQueueUrl: 'dlq', streamFailureQueueUrl: 'sf' },
  indexReader: {
    listDeadLettersBounded: async () => ({ found: [], complete: true }),
    listDueTimers: async () => [],
    listOutboxActorsBounded: async () => ({ found: [], complete: true }),
  },
  dynamodb: { send: async () => ({ Items: [], ScannedCount: 0 }) },
} as unknown as Target;

const inbox = (waiting: number, inFlight: number, oldestAgeMs: number): QueueHealth => ({
  name: 'inbox',
  url: 'inbox',
  waiting,
  inFlight,
  delayed: 0,
  oldestAgeMs,
});

describe('baton status of an inbox behind', () => {
  beforeEach(() => {
    read.inbox = inbox(0, 0, 0);
  });

  it('says where to look next when workers take its messages: the worker’s log and errors', async () => {
    read.inbox = inbox(40, 3, 12 * 60_000);
    const status = await readStatus(target, 0, plain);
    expect(status.healthy).toBe(false);
    expect(status.problems).toEqual([
      'inbox behind: its oldest message is 12m 0s old (40 waiting, 3 in flight): a handler that keeps failing holds its actor\'s later messages — the worker\'s log names the actor and the error ("message will be retried"), and baton actors get <type/key> of that actor shows the message it stops at, the attempts it failed, its handler and error; a worker crashing or timing out raises workerErrorsAlarm; see InboxAgeAlarm in docs/operations.md',
    ]);
  });

  it('says no worker is taking them when none is in flight', async () => {
    read.inbox = inbox(40, 0, 12 * 60_000);
    expect((await readStatus(target, 0, plain)).problems).toEqual([
      "inbox behind: its oldest message is 12m 0s old (40 waiting, none in flight): no worker is taking them — throttled (WorkerThrottlesAlarm, AccountConcurrencyAlarm) or failing (workerErrorsAlarm, the worker's log); see InboxAgeAlarm in docs/operations.md",
    ]);
  });

  it('says an inbox CloudWatch found behind a minute ago and SQS finds empty now may have caught up', async () => {
    read.inbox = inbox(0, 0, 6 * 60_000);
    expect((await readStatus(target, 0, plain)).problems).toEqual([
      "inbox behind: its oldest message is 6m 0s old by CloudWatch's latest minute, and SQS counts none in it now: it may have caught up (run baton status again in a minute)",
    ]);
  });

  it('finds nothing wrong with an inbox whose oldest message is young', async () => {
    read.inbox = inbox(40, 3, 60_000);
    const status = await readStatus(target, 0, plain);
    expect(status.problems).toEqual([]);
    expect(status.healthy).toBe(true);
  });
});

describe('baton status of paused actors', () => {
  it('says the paused actors are unchecked when the scan for them fails, and reports the rest', async () => {
    const denied = Object.assign(new Error('not authorized to perform: dynamodb:Scan'), {
      name: 'AccessDeniedException',
    });
    const refused = {
      ...target,
      dynamodb: { send: async () => Promise.reject(denied) },
    } as unknown as Target;
    read.inbox = inbox(0, 0, 0);
    const status = await readStatus(refused, 0, plain);
    expect(status.paused).toEqual({ actors: [], workflows: [], complete: false });
    expect(status.healthy).toBe(true);
    expect(status.unchecked).toEqual([
      expect.stringMatching(
        /^paused actors with no message parked, paused workflow instances and actors stuck on a failing message, which could not be read \(.*AccessDeniedException.*\): finding them scans the table, which needs dynamodb:Scan$/,
      ),
    ]);
    // Its lines say unknown, not none.
    const human = await humanOf(refused);
    expect(human).toMatch(/^paused {14}unknown \(unreadable: see "not checked" below\)$/m);
    expect(human).toMatch(/^paused workflows {4}unknown \(unreadable: see "not checked" below\)$/m);
    expect(human).toMatch(/^failing {13}unknown \(unreadable: see "not checked" below\)$/m);
  });
});

describe('baton status of actors stuck on a failing message', () => {
  beforeEach(() => {
    read.inbox = inbox(0, 0, 0);
  });
  const minutes = (n: number) => n * 60_000;
  /** A count of failures of `id` at the head of the inbox, the first `since`. */
  const failing = (id: string, since?: number, ended?: { at: number; by: string }) => ({
    id,
    at: '7',
    attempts: 4,
    ...(since === undefined ? {} : { since }),
    handler: 'add',
    error: { code: 'RETRYABLE', message: 'the ledger is down' },
    ...(ended ? { ended } : {}),
  });
  const now = minutes(200);

  it('names the one stuck longest from the scan that finds the paused, and asks for attention past 5 minutes', async () => {
    const { target: stuck, scans } = scanning([
      recordItem('tally/new', { failing: failing('m-new', now - minutes(1)) }),
      recordItem('tally/old', { failing: failing('m-old', now - minutes(192)) }),
      recordItem('tally/idle', { paused: { at: 5, by: 'ops' } }),
    ]);
    const status = await readStatus(stuck, now, plain);
    expect(scans).toEqual([
      expect.objectContaining({ ProjectionExpression: '#pk, #paused, #failing, #state' }),
    ]);
    expect(status.failing).toEqual({
      actors: 2,
      longest: {
        id: 'tally/old',
        messageId: 'm-old',
        attempts: 4,
        // An ISO time, as every time in --json.
        since: new Date(now - minutes(192)).toISOString(),
        ended: false,
      },
    });
    expect(status.problems).toEqual([
      '2 actor(s) stuck on a failing message, the longest tally/old (message m-old, failing for 3h 12m, 4 attempt(s)): its later messages wait until it is applied or dead-lettered; baton actors get tally/old shows its error, baton backlog lists the others; to end it now, without running its handler again: baton actors end-failing tally/old m-old (see InboxAgeAlarm in docs/operations.md)',
    ]);
    const human = (await humanOf(stuck, now)).split('\n');
    expect(human).toContain(
      'failing             2 actor(s), the longest tally/old (failing for 3h 12m, 4 attempt(s))',
    );
  });

  it('asks for nothing while the longest has failed for under 5 minutes, and says when an operator ended it', async () => {
    const { target: fresh } = scanning([
      recordItem('tally/new', { failing: failing('m-new', now - minutes(4)) }),
    ]);
    const young = await readStatus(fresh, now, plain);
    expect(young.healthy).toBe(true);
    // Said beside the OK all the same: an operator in a failure's first minutes sees it.
    expect(young.watching).toEqual([
      '1 actor(s) failing a message, retried: the longest tally/new (failing for 4m 0s, 4 attempt(s)); ATTENTION if one still fails after 5m 0s (baton actors get tally/new shows its error)',
    ]);
    const human = await humanOf(fresh, now);
    expect(human).toMatch(/^failing {13}1 actor\(s\), the longest tally\/new \(failing for 4m/m);
    expect(human).toMatch(/^health {14}OK — watching: 1 actor\(s\) failing a message, retried/m);

    const ended = { at: now - minutes(1), by: 'ops' };
    const { target: ending } = scanning([
      recordItem('tally/old', { failing: failing('m-old', now - minutes(30), ended) }),
    ]);
    const status = await readStatus(ending, now, plain);
    expect(status.problems[0]).toMatch(
      /; an operator ended it: its next delivery keeps it as a dead letter \(see InboxAgeAlarm/,
    );
    expect(await humanOf(ending, now)).toMatch(/, 4 attempt\(s\), ended by an operator\)$/m);
    // A count an older Baton kept, without a time: stuck for how long is unknown, so it is said.
    const { target: older } = scanning([recordItem('tally/old', { failing: failing('m-old') })]);
    expect((await readStatus(older, now, plain)).problems[0]).toContain(
      '(message m-old, age unknown, 4 attempt(s))',
    );
    expect(await humanOf(scanning([]).target)).toMatch(/^failing {13}none$/m);
  });
});

/** The record item of actor `id`, as the scan projects it: its pause and its state (JSON). */
function recordItem(id: string, fields: { paused?: unknown; state?: unknown; failing?: unknown }) {
  return {
    pk: { S: `A#${id}` },
    ...(fields.paused === undefined ? {} : { ps: { S: JSON.stringify(fields.paused) } }),
    ...(fields.failing === undefined ? {} : { fl: { S: JSON.stringify(fields.failing) } }),
    ...(fields.state === undefined ? {} : { state: { S: JSON.stringify(fields.state) } }),
  };
}

/** A workflow instance's state, paused on a history its code (`version`) does not replay. */
const pausedState = (version: string) => ({
  status: 'paused',
  journal: [],
  completed: 0,
  signals: [],
  notify: [],
  paused: {
    error: { code: 'NON_DETERMINISTIC', message: `workflow (code version ${version}) diverged` },
    version,
  },
});

/** What `baton status` prints of `target` at `now`, its hints plain. */
async function humanOf(on: Target, now = 0): Promise<string> {
  return (await statusRun(on, now)).printed;
}

/** `baton status` of `target` at `now`: what it prints, its hints plain, and its exit code. */
async function statusRun(on: Target, now = 0): Promise<{ printed: string; code: unknown }> {
  let printed = '';
  const ctx = {
    target: async () => on,
    // The inbox's own check (a dead-letter queue given as the inbox) is tests/ops/status.test.ts's.
    checkNamedInbox: async () => {},
    values: {},
    io: { now: () => now },
    followUp: plain,
    print: <T>(value: T, human: (value: T) => string) => {
      printed = human(value);
    },
  } as unknown as OpsContext;
  const code = await statusCommand(ctx);
  return { printed, code };
}

describe('baton status’s exit code', () => {
  it('is 3 when its health line says ATTENTION, and 0 when it says OK, whatever it did not check', async () => {
    read.inbox = inbox(40, 3, 12 * 60_000);
    const behind = await statusRun(target);
    expect(behind.code).toBe(UNHEALTHY_EXIT);
    expect(UNHEALTHY_EXIT).toBe(3);
    expect(behind.printed).toMatch(/^health +ATTENTION — inbox behind/m);

    read.inbox = inbox(0, 0, 0);
    const ok = await statusRun(target);
    expect(ok.code).toBe(0);
    expect(ok.printed).toMatch(/^health +OK$/m);
    // A scan refused leaves paused actors unchecked, said so: not a problem found.
    const refused = { ...target, dynamodb: { send: async () => Promise.reject(new Error('no')) } };
    const unchecked = await statusRun(refused as unknown as Target);
    expect(unchecked.code).toBe(0);
    expect(unchecked.printed).toMatch(/^health +OK \(not checked: paused actors/m);
  });
});

/** `target`, its table scanned in one page of `items`, stopping short when `more` is left. */
function scanning(items: readonly unknown[], more = false): { target: Target; scans: unknown[] } {
  const scans: unknown[] = [];
  const send = async (command: { input: unknown }) => {
    scans.push(command.input);
    return {
      Items: items,
      ScannedCount: more ? 10_000 : items.length,
      ...(more ? { LastEvaluatedKey: { pk: { S: 'A#z/z' }, sk: { S: 'R' } } } : {}),
    };
  };
  return { target: { ...target, dynamodb: { send } } as unknown as Target, scans };
}

describe('baton status of workflow instances a deploy paused', () => {
  beforeEach(() => {
    read.inbox = inbox(0, 0, 0);
  });

  it('names them from the same scan as the paused actors, asks for attention, and hints the commands', async () => {
    const { target: paused, scans } = scanning([
      recordItem('wf-ship/c', { state: pausedState('1') }),
      recordItem('tally/idle', { paused: { at: 5, by: 'ops' }, state: { n: 1 } }),
      // Paused text nested in a running instance's state: a step's value, not its status.
      recordItem('wf-ship/d', { state: { status: 'waiting', output: { status: 'paused' } } }),
    ]);
    const status = await readStatus(paused, 0, plain);
    // One scan, bounded, reads both: the record's pause, and an instance's state only when it
    // holds a paused status.
    expect(scans).toEqual([
      expect.objectContaining({
        Limit: 10_000,
        ProjectionExpression: '#pk, #paused, #failing, #state',
        ExpressionAttributeValues: expect.objectContaining({
          ':wf': { S: 'A#wf-' },
          ':pausedStatus': { S: '"status":"paused"' },
        }),
      }),
    ]);
    expect(status.paused).toEqual({
      actors: [{ id: 'tally/idle', at: '1970-01-01T00:00:00.005Z', by: 'ops' }],
      workflows: [
        {
          id: 'wf-ship/c',
          workflow: 'ship',
          instance: 'c',
          version: '1',
          error: 'workflow (code version 1) diverged',
          threw: false,
        },
      ],
      complete: true,
    });
    expect(status.healthy).toBe(false);
    expect(status.problems).toEqual([
      '1 workflow instance(s) paused: their code does not replay their history (baton workflows list ship --status paused): one a deploy still rolling out paused is replayed on its own within about half an hour; else deploy code that replays them (or fixes what they threw), then resume them (see PausedWorkflowsAlarm in docs/operations.md)',
    ]);
    expect((await humanOf(paused)).split('\n')).toContain(
      'paused workflows    1 instance(s): ship/c (version 1) — baton workflows show ship c says why; baton workflows resume ship c once code that replays it runs',
    );
  });

  it('tells an instance whose run threw from one whose history does not replay', async () => {
    const threw = {
      ...pausedState('3'),
      paused: {
        error: {
          code: 'RETRYABLE',
          message: 'workflow "ship" (code version 3) threw TypeError: x is undefined',
          details: { reason: 'RUN_THREW' },
        },
        version: '3',
      },
    };
    const { target: one } = scanning([recordItem('wf-ship/t', { state: threw })]);
    const status = await readStatus(one, 0, plain);
    expect(status.paused.workflows).toMatchObject([{ id: 'wf-ship/t', threw: true }]);
    expect(status.problems[0]).toMatch(
      /^1 workflow instance\(s\) paused: their run threw an unexpected error \(/,
    );
    expect((await humanOf(one)).split('\n')).toContain(
      'paused workflows    1 instance(s): ship/t (version 3, its run threw) — baton workflows show ship t says why; baton workflows resume ship t once code that replays it runs',
    );
    const { target: both } = scanning([
      recordItem('wf-ship/t', { state: threw }),
      recordItem('wf-ship/u', { state: pausedState('2') }),
    ]);
    expect((await readStatus(both, 0, plain)).problems[0]).toContain(
      'paused: their code does not replay their history, or their run threw an unexpected error (',
    );
  });

  it('lists several with the command that lists them, across workflows with --app', async () => {
    const { target: one } = scanning([
      recordItem('wf-ship/b', { state: pausedState('2') }),
      recordItem('wf-ship/a', { state: pausedState('2') }),
    ]);
    expect((await humanOf(one)).split('\n')).toContain(
      'paused workflows    2 instance(s): ship/a (version 2), ship/b (version 2) — baton workflows list ship --status paused lists them, baton workflows show ship <id> says why; baton workflows resume ship <id> once code that replays it runs',
    );
    const { target: two } = scanning([
      recordItem('wf-ship/a', { state: pausedState('2') }),
      recordItem("wf-bill/it's", { state: pausedState('7') }),
    ]);
    const status = await readStatus(two, 0, plain);
    expect(status.paused.workflows.map((w) => w.id)).toEqual(["wf-bill/it's", 'wf-ship/a']);
    // A command per workflow, each to run as it is.
    expect(status.problems[0]).toContain(
      '(baton workflows list bill --status paused; baton workflows list ship --status paused)',
    );
    expect((await humanOf(two)).split('\n')).toContain(
      "paused workflows    2 instance(s): bill/it's (version 7), ship/a (version 2) — baton workflows list bill --status paused and baton workflows list ship --status paused list them, baton workflows show <workflow> <id> says why; baton workflows resume <workflow> <id> once code that replays it runs",
    );
    // One instance: its id shell-quoted in the hint.
    const { target: quoted } = scanning([recordItem("wf-bill/it's", { state: pausedState('7') })]);
    expect(await humanOf(quoted)).toContain(
      `baton workflows show bill ${shellQuote("it's")} says why; baton workflows resume bill ${shellQuote("it's")} once`,
    );
  });

  it('says when the scan stopped at its bound: what it found counts only the items it read', async () => {
    const { target: bounded, scans } = scanning(
      [recordItem('wf-ship/c', { state: pausedState('1') })],
      true,
    );
    const status = await readStatus(bounded, 0, plain);
    // One page of at most 10,000 items read: the scan stops there, not at the table's end.
    expect(scans).toHaveLength(1);
    expect(status.paused.complete).toBe(false);
    expect(status.paused.workflows.map((w) => w.id)).toEqual(['wf-ship/c']);
    expect(status.unchecked).toEqual([
      'paused actors, workflow instances and actors stuck on a failing message past the first 10,000 items of the table (--limit raises it; baton actors list <type> shows whether each actor of a type is paused, baton workflows list --status paused --app <entry> the paused instances)',
    ]);
    const human = await humanOf(bounded);
    expect(human).toMatch(
      /^paused {14}0 actor\(s\) in the first 10,000 items of the table \(see "not checked" below\)$/m,
    );
    expect(human).toMatch(
      /^paused workflows {4}1 instance\(s\) in the first 10,000 items of the table \(see "not checked" below\): ship\/c \(version 1\) — /m,
    );
  });

  it('shows none when no instance is paused', async () => {
    const human = await humanOf(scanning([]).target);
    expect(human).toMatch(/^paused workflows {4}0 instance\(s\)$/m);
    expect(human).toMatch(/^health {14}OK$/m);
  });
});
