/**
 * `baton status` on DynamoDB Local and ElasticMQ: every queue the deployment names, with its
 * depth, in flight and delayed messages, and the oldest message's age said unknown (SQS's API
 * and ElasticMQ give none; CloudWatch does, on AWS).
 */
import { randomUUID } from 'node:crypto';
import { CreateQueueCommand, ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import {
  createAwsClients,
  createFifoQueue,
  createTable,
  createTimerQueue,
  DynamoStore,
} from '@baton/aws';
import { runOps } from '@baton/cli/ops';
import { describe, expect, inject, it } from 'vitest';

/** What `unchecked` says without the inbox's oldest age (the emulators report none). */
const INBOX_AGE_UNCHECKED =
  "whether the inbox is behind: its oldest message's age is unknown (CloudWatch only: SQS and the emulators report no age); compare its waiting count a minute apart";

describe('baton status on the emulators', () => {
  const endpoints = {
    dynamodbEndpoint: inject('dynamodbEndpoint'),
    sqsEndpoint: inject('sqsEndpoint'),
  };
  const { dynamodb, sqs } = createAwsClients(endpoints);
  const emulatorFlags = [
    ...['--dynamodb-endpoint', endpoints.dynamodbEndpoint],
    ...['--sqs-endpoint', endpoints.sqsEndpoint],
  ];

  it('shows each queue’s depth, in flight and delayed messages, and says why the oldest age is unknown', async () => {
    const name = `status-${randomUUID().slice(0, 8)}`;
    await createTable(dynamodb, name);
    const inbox = await createFifoQueue(sqs, name, { visibilityTimeoutMs: 60_000 });
    const timers = await createTimerQueue(sqs, name);
    for (const n of [1, 2, 3]) {
      await sqs.send(
        new SendMessageCommand({
          QueueUrl: inbox.queueUrl,
          MessageBody: `m${n}`,
          MessageGroupId: `g${n}`,
          MessageDeduplicationId: `d${n}`,
        }),
      );
    }
    // One taken by a worker that has not finished: in flight.
    await sqs.send(new ReceiveMessageCommand({ QueueUrl: inbox.queueUrl, MaxNumberOfMessages: 1 }));
    await sqs.send(
      new SendMessageCommand({ QueueUrl: timers.queueUrl, MessageBody: 't', DelaySeconds: 900 }),
    );

    const out: string[] = [];
    const argv = [
      ...['--table', name, '--queue-url', inbox.queueUrl],
      ...[
        '--dead-letter-queue-url',
        inbox.deadLetterQueueUrl,
        '--timer-queue-url',
        timers.queueUrl,
      ],
      ...emulatorFlags,
    ];
    const io = { out: (l: string) => out.push(l), err: () => {}, env: {}, now: () => Date.now() };
    expect(await runOps(['status', '--json', ...argv], io)).toBe(0);
    const status = JSON.parse(out.join('\n'));
    expect(status.queues).toEqual([
      {
        name: 'inbox',
        url: inbox.queueUrl,
        waiting: 2,
        inFlight: 1,
        delayed: 0,
        oldestAgeMs: null,
      },
      {
        name: 'inbox dead letters',
        url: inbox.deadLetterQueueUrl,
        waiting: 0,
        inFlight: 0,
        delayed: 0,
        oldestAgeMs: null,
      },
      {
        name: 'timers',
        url: timers.queueUrl,
        waiting: 0,
        inFlight: 0,
        delayed: 1,
        oldestAgeMs: null,
      },
    ]);
    expect(status.inbox).toEqual({
      url: inbox.queueUrl,
      waiting: 2,
      inFlight: 1,
      oldestAgeMs: null,
    });
    expect(status.oldestAges).toEqual({ unknown: expect.stringMatching(/CloudWatch only/) });
    // Healthy as far as it looked, and it says it could not tell whether the inbox is behind.
    expect(status.healthy).toBe(true);
    expect(status.unchecked).toContain(INBOX_AGE_UNCHECKED);

    out.length = 0;
    expect(await runOps(['status', ...argv], io)).toBe(0);
    const human = out.join('\n');
    expect(human).toMatch(/^inbox\s+2\s+1\s+0\s+unknown$/m);
    expect(human).toMatch(/^timers\s+0\s+0\s+1\s+unknown$/m);
    expect(human).toMatch(/oldest message age unknown: CloudWatch only/);
    expect(human).toMatch(
      /^health\s+OK \(not checked: .*whether the inbox is behind: its oldest message's age is unknown \(CloudWatch only: SQS and the emulators report no age\); compare its waiting count a minute apart\)$/m,
    );
  });

  it('reads dead letters and undrained sends up to --limit entries, says it stopped there, and counts at least what it read', async () => {
    const name = `status-${randomUUID().slice(0, 8)}`;
    await createTable(dynamodb, name);
    const inbox = await createFifoQueue(sqs, name, { visibilityTimeoutMs: 60_000 });
    const store = new DynamoStore({ client: dynamodb, tableName: name });
    // Five actors, each with a dead letter and a send committed an hour ago, never drained.
    const hourAgo = Date.now() - 3_600_000;
    for (let i = 0; i < 5; i++) {
      const id = `note/n${i}`;
      const envelope = {
        id: `m${i}`,
        from: 'note/src',
        seq: i + 1,
        to: id,
        name: 'add',
        payload: {},
        sentAt: hourAgo,
      };
      await store.commit({
        expectedVer: 0,
        record: { id, ver: 1, state: {}, inboxOffset: '1', marks: {}, sentSeq: 1 },
        outbox: [
          {
            actorId: id,
            seq: 1,
            envelopes: [{ ...envelope, from: id, to: 'note/x' }],
            createdAt: hourAgo,
          },
        ],
        idempotency: [],
        deadLetters: {
          put: [
            {
              actorId: id,
              messageId: envelope.id,
              envelope,
              redrivable: true,
              error: { code: 'RETRYABLE', message: 'boom', details: {} },
              attempts: 3,
              at: hourAgo + i,
            },
          ],
          remove: [],
        },
      });
    }
    const out: string[] = [];
    const io = { out: (l: string) => out.push(l), err: () => {}, env: {}, now: () => Date.now() };
    const status = async (...more: string[]) => {
      out.length = 0;
      const argv = ['status', '--table', name, '--queue-url', inbox.queueUrl, ...emulatorFlags];
      // Dead letters are a problem: its health line says ATTENTION, and it exits 3.
      expect(await runOps([...argv, ...more], io)).toBe(3);
      return out.join('\n');
    };

    // Under the bound: the exact counts, as before.
    const whole = JSON.parse(await status('--json'));
    expect(whole).toMatchObject({ deadLetters: 5, deadLettersComplete: true, readBound: 10_000 });
    expect(whole.sweeperLag).toMatchObject({ actors: 5, complete: true });
    expect(whole.unchecked.join(' ')).not.toMatch(/--limit raises it/);
    expect(await status()).toMatch(/^dead letters +5 \(oldest 1h 0m ago\)$/m);

    // Over it: the reads stop at 3 entries each, and the counts are lower bounds, said so.
    const bounded = JSON.parse(await status('--limit', '3', '--json'));
    expect(bounded).toMatchObject({ deadLetters: 3, deadLettersComplete: false, readBound: 3 });
    expect(bounded.sweeperLag.complete).toBe(false);
    expect(bounded.sweeperLag.actors).toBeGreaterThan(0);
    expect(bounded.sweeperLag.actors).toBeLessThanOrEqual(3);
    expect(bounded.problems).toEqual([
      expect.stringMatching(/^at least 3 dead letter\(s\): baton dead-letters list /),
      expect.stringMatching(
        /^at least [123] actor\(s\) holding sends no sweep retired, e\.g\. note\/n/,
      ),
    ]);
    expect(bounded.unchecked).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^dead letters and parked messages past the first 3 entries of the table's index: the counts shown are lower bounds \(--limit raises it; baton dead-letters list .*reads them all\)$/,
        ),
        "actors holding sends no sweep retired past the first 3 entries of the table's outbox index, the oldest read first: the count shown is a lower bound (--limit raises it)",
      ]),
    );
    const human = await status('--limit', '3');
    expect(human).toMatch(
      /^dead letters +at least 3 \(oldest 1h 0m ago\) \(stopped at the read bound of 3 entries; use --limit to see all\)$/m,
    );
    expect(human).toMatch(
      /^sweeper lag +at least [123] actor\(s\) holding sends no sweep retired for over 4m 0s \(stopped at the read bound of 3 entries; use --limit to see all\)$/m,
    );
    expect(human).toMatch(/^parked +at least 0 message\(s\) of 0 paused actor\(s\) \(stopped at/m);

    const bad = await runOps(
      ['status', '--limit', '0', '--table', name, '--queue-url', inbox.queueUrl, ...emulatorFlags],
      io,
    );
    expect(bad).toBe(2);
  });

  it('counts the table changes the stream function gave up on, and asks for attention', async () => {
    const name = `status-${randomUUID().slice(0, 8)}`;
    await createTable(dynamodb, name);
    const inbox = await createFifoQueue(sqs, name);
    const { QueueUrl: failures } = await sqs.send(
      new CreateQueueCommand({ QueueName: `${name}-stream-failures` }),
    );
    await sqs.send(new SendMessageCommand({ QueueUrl: failures, MessageBody: '{"shard":"s"}' }));

    const out: string[] = [];
    const argv = [
      ...['--table', name, '--queue-url', inbox.queueUrl, '--stream-failure-queue-url', failures!],
      ...emulatorFlags,
    ];
    const io = { out: (l: string) => out.push(l), err: () => {}, env: {}, now: () => Date.now() };
    // A problem found: exit 3 (not 1, a status that could not read), the JSON printed whole.
    expect(await runOps(['status', '--json', ...argv], io)).toBe(3);
    const status = JSON.parse(out.join('\n'));
    expect(status.streamFailures).toBe(1);
    expect(status.queues.map((q: { name: string }) => q.name)).toEqual([
      'inbox',
      'stream failures',
    ]);
    expect(status.healthy).toBe(false);
    expect(status.problems).toEqual([
      '1 table change(s) the stream function gave up on: live queries may have missed pushes (see its logs)',
    ]);
    out.length = 0;
    expect(await runOps(['status', ...argv], io)).toBe(3);
    expect(out.join('\n')).toMatch(/^health +ATTENTION — 1 table change\(s\) the stream function/m);
    // The queue not named is said to be unchecked, not counted as healthy.
    expect(status.unchecked).toEqual([
      "the inbox's dead-letter queue (--dead-letter-queue-url or BATON_DEAD_LETTER_QUEUE_URL)",
      INBOX_AGE_UNCHECKED,
    ]);
  });

  it('counts the timer messages the relay gave up on, and says when it did not look for them', async () => {
    const name = `status-${randomUUID().slice(0, 8)}`;
    await createTable(dynamodb, name);
    const inbox = await createFifoQueue(sqs, name);
    const timers = await createTimerQueue(sqs, name);
    const { QueueUrl: timerDeadLetters } = await sqs.send(
      new CreateQueueCommand({ QueueName: `${name}-timer-dead-letters` }),
    );
    await sqs.send(new SendMessageCommand({ QueueUrl: timerDeadLetters, MessageBody: '{}' }));
    const out: string[] = [];
    const io = { out: (l: string) => out.push(l), err: () => {}, env: {}, now: () => Date.now() };
    const target = [
      ...['--table', name, '--queue-url', inbox.queueUrl, '--timer-queue-url', timers.queueUrl],
      ...emulatorFlags,
    ];

    expect(await runOps(['status', '--json', ...target], io)).toBe(0);
    const unlooked = JSON.parse(out.join('\n'));
    expect(unlooked.timerDeadLetters).toBeNull();
    expect(unlooked.unchecked).toContain(
      "the timer queue's dead-letter queue (--timer-dead-letter-queue-url or BATON_TIMER_DEAD_LETTER_QUEUE_URL; a stack names it once redeployed with the current @baton/cdk)",
    );

    out.length = 0;
    const named = [...target, '--timer-dead-letter-queue-url', timerDeadLetters!];
    expect(await runOps(['status', '--json', ...named], io)).toBe(3);
    const status = JSON.parse(out.join('\n'));
    expect(status.timerDeadLetters).toBe(1);
    expect(status.queues.map((q: { name: string }) => q.name)).toEqual([
      'inbox',
      'timers',
      'timer dead letters',
    ]);
    expect(status.healthy).toBe(false);
    expect(status.problems).toEqual([
      "1 timer message(s) the relay gave up on: the timers stay stored and the sweeper fires them late (see the relay's logs; docs/operations.md)",
    ]);
    expect(status.unchecked.join('; ')).not.toMatch(/timer queue's dead-letter queue/);
  });

  it('reports a queue it cannot read as not checked, and goes on with the others', async () => {
    const name = `status-${randomUUID().slice(0, 8)}`;
    await createTable(dynamodb, name);
    const inbox = await createFifoQueue(sqs, name);
    const gone = inbox.queueUrl.replace(/[^/]+$/, `${name}-never-made`);
    const out: string[] = [];
    const io = { out: (l: string) => out.push(l), err: () => {}, env: {}, now: () => Date.now() };
    const argv = [
      ...['--table', name, '--queue-url', inbox.queueUrl, '--stream-failure-queue-url', gone],
      ...emulatorFlags,
    ];
    expect(await runOps(['status', '--json', ...argv], io)).toBe(0);
    const status = JSON.parse(out.join('\n'));
    expect(status.queues.map((q: { name: string }) => q.name)).toEqual(['inbox']);
    expect(status.streamFailures).toBeNull();
    expect(status.unchecked).toEqual([
      expect.stringMatching(
        /^the stream failures queue, which could not be read \(could not read the depth of queue .*never-made: .*sqs:GetQueueAttributes\)$/,
      ),
      "the inbox's dead-letter queue (--dead-letter-queue-url or BATON_DEAD_LETTER_QUEUE_URL)",
      INBOX_AGE_UNCHECKED,
    ]);
  });

  it('says what it did not check, takes the queues from the environment, and refuses the inbox as its dead-letter queue', async () => {
    const name = `status-${randomUUID().slice(0, 8)}`;
    await createTable(dynamodb, name);
    const inbox = await createFifoQueue(sqs, name);
    const out: string[] = [];
    const err: string[] = [];
    const io = (env: Record<string, string>) => ({
      out: (l: string) => out.push(l),
      err: (l: string) => err.push(l),
      env: { BATON_TABLE: name, BATON_INBOX_URL: inbox.queueUrl, ...env },
      now: () => Date.now(),
    });
    expect(await runOps(['status', ...emulatorFlags], io({}))).toBe(0);
    expect(out.join('\n')).toMatch(
      /health\s+OK \(not checked: the inbox's dead-letter queue \(--dead-letter-queue-url or BATON_DEAD_LETTER_QUEUE_URL\); the stream failures queue/,
    );

    out.length = 0;
    const env = { BATON_DEAD_LETTER_QUEUE_URL: inbox.deadLetterQueueUrl };
    expect(await runOps(['status', '--json', ...emulatorFlags], io(env))).toBe(0);
    expect(JSON.parse(out.join('\n'))).toMatchObject({ queueDeadLetters: 0, healthy: true });

    // A table that is not there: the names, and the endpoints looked at (not a region: the
    // emulators have none), are said.
    err.length = 0;
    const wrong = { BATON_TABLE: `${name}-typo` };
    expect(await runOps(['status', ...emulatorFlags], io(wrong))).toBe(1);
    expect(err.join('\n')).toMatch(/ResourceNotFoundException/);
    expect(err.at(-1)!.split('\n').at(-1)).toBe(
      `  looked for table ${name}-typo and inbox ${inbox.queueUrl} on DynamoDB at ${endpoints.dynamodbEndpoint} and SQS at ${endpoints.sqsEndpoint}: check the names (--table, --queue-url) and the endpoints (--dynamodb-endpoint, --sqs-endpoint)`,
    );

    const same = { BATON_DEAD_LETTER_QUEUE_URL: inbox.queueUrl };
    expect(await runOps(['status', ...emulatorFlags], io(same))).toBe(2);
    expect(err.join('\n')).toMatch(/--dead-letter-queue-url names the inbox itself/);
  });
  it('refuses the inbox’s dead-letter queue as --queue-url in every command that counts the inbox, as the acting commands do', async () => {
    const name = `status-${randomUUID().slice(0, 8)}`;
    await createTable(dynamodb, name);
    const inbox = await createFifoQueue(sqs, name, { visibilityTimeoutMs: 60_000 });
    for (const n of [1, 2]) {
      await sqs.send(
        new SendMessageCommand({
          QueueUrl: inbox.queueUrl,
          MessageBody: `m${n}`,
          MessageGroupId: `g${n}`,
          MessageDeduplicationId: `d${n}`,
        }),
      );
    }
    const dlq = inbox.deadLetterQueueUrl;
    const refusal = `the inbox queue ${dlq} is the dead-letter queue of ${inbox.queueUrl}, not an inbox: a message sent to it is never applied (the inbox is --queue-url ${inbox.queueUrl}); check --queue-url (or BATON_INBOX_URL), or name the deployment with --stack; nothing was done`;
    for (const command of [['status'], ['backlog'], ['inspect', '--port', '0']]) {
      const out: string[] = [];
      const err: string[] = [];
      const io = {
        out: (l: string) => out.push(l),
        err: (l: string) => err.push(l),
        env: {},
        now: () => Date.now(),
      };
      const argv = [...command, '--table', name, '--queue-url', dlq, ...emulatorFlags];
      expect(await runOps(argv, io), command[0]).toBe(2);
      expect(out).toEqual([]);
      expect(err.join('\n')).toBe(`baton ${command[0]}: ${refusal}`);
    }
    // The same command given the inbox counts its backlog.
    const out: string[] = [];
    const io = { out: (l: string) => out.push(l), err: () => {}, env: {}, now: () => Date.now() };
    const argv = ['status', '--json', '--table', name, '--queue-url', inbox.queueUrl];
    expect(await runOps([...argv, ...emulatorFlags], io)).toBe(0);
    expect(JSON.parse(out.join('\n')).inbox).toMatchObject({ waiting: 2 });
  });
});
