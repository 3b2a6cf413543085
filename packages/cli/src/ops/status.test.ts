import { batonCommand as plain } from '@baton/core/engine';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { QueueHealth } from './queues.ts';
import { readStatus } from './status.ts';
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
    listDeadLetters: async () => [],
    listDueTimers: async () => [],
    listOutboxActors: async () => [],
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
      'inbox behind: its oldest message is 12m 0s old (40 waiting, 3 in flight): a handler that keeps failing holds its actor\'s later messages — the worker\'s log names the actor and the error ("message will be retried"), and baton actors get <type/key> of that actor shows the message it stops at and the attempts it failed; a worker crashing or timing out raises workerErrorsAlarm; see InboxAgeAlarm in docs/operations.md',
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
    expect(status.paused).toEqual({ actors: [], complete: false });
    expect(status.healthy).toBe(true);
    expect(status.unchecked).toEqual([
      expect.stringMatching(
        /^paused actors with no message parked, which could not be read \(.*AccessDeniedException.*\): finding them scans the table, which needs dynamodb:Scan$/,
      ),
    ]);
  });
});
