/**
 * `baton` when SQS or DynamoDB does not answer, on DynamoDB Local and ElasticMQ: a service that
 * takes the connection and never answers (a frozen emulator) fails the command within the
 * clients' request timeout, not never, naming the service, its endpoint and how long it waited;
 * one that refuses the connection is named with its endpoint too. An acting command says what
 * it may have done: nothing, when none of its writes reached a service; else that it may have
 * taken effect, and how to tell — and run again, it applies each letter once.
 */
import { join } from 'node:path';
import { runOps } from '@baton/cli/ops';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REQUEST_TIMEOUT_MS } from '../../packages/cli/src/ops/awsClients.ts';
import {
  createOpsDeployment,
  flagsOf,
  type OpsDeployment,
  pumpUntil,
} from './fixtures/opsDeployment.ts';
import { faults, runs, Tally } from './fixtures/tallyApp.ts';
import {
  type LoopbackEndpoint,
  silentServer,
  unansweringProxy,
} from './fixtures/unansweringProxy.ts';

const APP = join(import.meta.dirname, 'fixtures', 'tallyApp.ts');

/** One attempt per call: a call that gets no answer fails after one request timeout. */
const ONE_ATTEMPT = { AWS_MAX_ATTEMPTS: '1' };

describe('baton when a service does not answer', () => {
  let deployment: OpsDeployment;
  const closing: Array<() => Promise<void>> = [];

  beforeEach(async () => {
    deployment = await createOpsDeployment('unanswered');
    faults.poisoned = true;
    runs.clear();
  });

  afterEach(async () => {
    for (const close of closing.splice(0)) await close();
  });

  /** `baton <argv>` with `options` as its target flags and `env` as its environment. */
  async function baton(
    argv: readonly string[],
    options: Record<string, string>,
    env: Record<string, string> = {},
  ) {
    const out: string[] = [];
    const err: string[] = [];
    const io = {
      out: (l: string) => out.push(l),
      err: (l: string) => err.push(l),
      env,
      now: () => Date.now(),
    };
    const started = Date.now();
    const code = await runOps([...argv, ...flagsOf(options), '--operator', 'ops'], io);
    return { code, out: out.join('\n'), err: err.join('\n'), tookMs: Date.now() - started };
  }

  /** `made`, closed after the test. */
  function closedAfter(made: LoopbackEndpoint): string {
    closing.push(() => made.close());
    return made.endpoint;
  }

  /** Sends `entry` to `to` through the CLI: its message id. */
  async function send(to: string, entry: string): Promise<string> {
    const argv = ['send', to, 'add', JSON.stringify({ entry }), '--app', APP, '--json'];
    const sent = await baton(argv, deployment.options);
    expect(sent.code, sent.err).toBe(0);
    return JSON.parse(sent.out).messageId as string;
  }

  /** Poisoned messages to `actors`, pumped until each is kept as a dead letter: their ids. */
  async function deadLetters(actors: readonly string[]): Promise<string[]> {
    const ids = await Promise.all(actors.map((to) => send(to, 'poison')));
    const source = deployment.worker([Tally]);
    await pumpUntil(deployment.queue, source, async () => {
      return (await deployment.store.listDeadLetters()).length === actors.length;
    });
    return ids;
  }

  it('fails a redrive whose SQS takes the connection and never answers, naming it, its endpoint and the wait, and says it changed nothing', async () => {
    const [id] = await deadLetters(['tally/u']);
    const silent = closedAfter(await silentServer());
    const frozen = { ...deployment.options, 'sqs-endpoint': silent };
    const argv = ['dead-letters', 'redrive', 'tally/u', id!, '--yes', '--json'];
    const redrive = await baton(argv, frozen, ONE_ATTEMPT);
    expect(redrive.code).toBe(1);
    expect(redrive.tookMs).toBeLessThan(REQUEST_TIMEOUT_MS + 10_000);
    expect(redrive.err).toBe(
      `baton dead-letters redrive: SQS at ${silent} did not answer within ${REQUEST_TIMEOUT_MS / 1000} s (1 attempt): it may be down, stalled or out of reach; check the endpoint (--sqs-endpoint, BATON_SQS_ENDPOINT, or the baton dev --local names) and that SQS, or its emulator, runs there and answers, then run the command again\n  none of its writes reached the table or a queue: it changed nothing`,
    );
    expect(JSON.parse(redrive.out).error).toMatchObject({
      code: 'UNAVAILABLE',
      details: { service: 'SQS', endpoint: silent, unanswered: 'timeout', attempts: 1 },
    });
    // Nothing was sent: the letter is kept.
    const kept = await deployment.store.listDeadLetters('tally/u');
    expect(kept.map((l) => l.messageId)).toEqual([id]);
  });

  it('says a redrive whose SQS stopped answering after a send may have taken effect; run again, each letter is applied once', async () => {
    const ids = await deadLetters(['tally/v', 'tally/w']);
    faults.poisoned = false;
    // SQS takes one SendMessage, then answers nothing more.
    let sends = 0;
    const proxy = closedAfter(
      await unansweringProxy(deployment.options['sqs-endpoint']!, (operation) => {
        if (sends >= 1) return 'hold';
        if (/SendMessage/.test(operation)) sends++;
        return 'pass';
      }),
    );
    const stalled = { ...deployment.options, 'sqs-endpoint': proxy };
    const redrive = await baton(
      ['dead-letters', 'redrive', '--all', '--yes'],
      stalled,
      ONE_ATTEMPT,
    );
    expect(redrive.code).toBe(1);
    // One letter sent (and audited) before SQS stopped answering.
    expect(redrive.err.match(/baton audit .*"action":"dead-letters redrive"/g)).toHaveLength(1);
    // It says how far it got: one letter redriven, stopped at the other.
    expect(redrive.err).toMatch(
      /^baton dead-letters redrive: redrove 1 of the 2 dead letters \(tally\/[vw] .*\), then stopped at tally\/[vw] /m,
    );
    expect(redrive.err).toContain(
      `: SQS at ${proxy} did not answer within ${REQUEST_TIMEOUT_MS / 1000} s (1 attempt)`,
    );
    expect(redrive.err).toMatch(
      /\n {2}it may have taken effect before that, in part or whole: run it again: a letter redriven twice is applied once \(each stays listed in baton dead-letters list .* until its actor applies it\)$/,
    );
    const again = await baton(['dead-letters', 'redrive', '--all', '--yes'], deployment.options);
    expect(again.code, again.err).toBe(0);
    await pumpUntil(deployment.queue, deployment.worker([Tally]), async () => {
      return (await deployment.store.listDeadLetters()).length === 0;
    });
    expect(ids).toHaveLength(2);
    // Each poisoned entry ran 4 times failing (the inbox's receives), then once applied.
    for (const actor of ['tally/v', 'tally/w']) {
      const record = await deployment.store.load(actor);
      expect(record?.state, actor).toEqual({ entries: ['poison'] });
    }
  });

  it('names the service and the endpoint that refused the connection, and what to check', async () => {
    const refused = 'http://127.0.0.1:1';
    const sqsDown = await baton(['status'], { ...deployment.options, 'sqs-endpoint': refused });
    expect(sqsDown.code).toBe(1);
    expect(sqsDown.err).toMatch(
      /^baton status: could not connect to SQS at http:\/\/127\.0\.0\.1:1 \(connect ECONNREFUSED 127\.0\.0\.1:1; 3 attempts\); check the endpoint \(--sqs-endpoint, BATON_SQS_ENDPOINT, or the baton dev --local names\) and that SQS, or its emulator, runs there and answers, then run the command again$/,
    );
    // An acting command checks the inbox first: refused there, it pauses nothing.
    await send('tally/x', 'a');
    await pumpUntil(deployment.queue, deployment.worker([Tally]));
    const pause = await baton(['actors', 'pause', 'tally/x', '--yes'], {
      ...deployment.options,
      'sqs-endpoint': refused,
    });
    expect(pause.code).toBe(1);
    expect(pause.err).toMatch(
      /^baton actors pause: could not connect to SQS at http:\/\/127\.0\.0\.1:1 .*\n {2}none of its writes reached the table or a queue: it changed nothing$/,
    );
    expect((await deployment.store.load('tally/x'))?.paused).toBeUndefined();

    const { 'queue-url': _, 'dead-letter-queue-url': __, ...tableAlone } = deployment.options;
    const tableDown = await baton(['dead-letters', 'list'], {
      ...tableAlone,
      'dynamodb-endpoint': refused,
    });
    expect(tableDown.code).toBe(1);
    expect(tableDown.err).toContain(
      'could not connect to DynamoDB at http://127.0.0.1:1 (connect ECONNREFUSED 127.0.0.1:1; 3 attempts); check the endpoint (--dynamodb-endpoint, BATON_DYNAMODB_ENDPOINT, or the baton dev --local names)',
    );
  });
});
