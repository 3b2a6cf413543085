/**
 * The crash test on the real AWS parts: worker processes (the Lambda worker handler behind a
 * local SQS poller) are killed with SIGKILL while a bank workload runs on DynamoDB Local and
 * ElasticMQ, and restarted. After quiescence every invariant of the simulation holds: money
 * conserved, each transfer applied exactly once, per-channel FIFO, outboxes and queues empty.
 *
 * The kills are aimed: a worker reports each step of its turns on stdout (see turnMarkers.ts),
 * and the test kills a worker right after it received a batch, or right after a commit, in
 * turn, with a kill at a random moment every third time. Where each kill struck is read from
 * what the worker wrote before it died, and the test requires enough kills in both mid-turn
 * phases: between receive and commit, and between commit and ack.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { createAwsClients, createFifoQueue, createTable, DynamoStore, SqsQueue } from '@baton/aws';
import { ErrorCode, silentLogger } from '@baton/core';
import { seededRandom } from '@baton/core/adapter';
import { Client } from '@baton/core/client';
import { Sweeper } from '@baton/core/engine';
import { build } from 'esbuild';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { Account, INITIAL_BALANCE } from '../simulation/bank-model.ts';
import {
  KILL_PHASES,
  type KillPhase,
  readMarker,
  type TurnMarker,
  TurnTracker,
} from './fixtures/turnMarkers.ts';

const KILLS = Number(process.env.BATON_CRASH_KILLS ?? 50);
const WORKERS = 3;
const ACCOUNTS = 4;
const TRANSFERS = 150;
const VISIBILITY_MS = 2000;
/** Kills required in each mid-turn phase (fewer when BATON_CRASH_KILLS is set below 30). */
const MID_TURN_KILLS = Math.min(10, Math.floor(KILLS / 3));
/** How long an aimed kill waits for its step before it strikes at random instead. */
const AIM_MS = 1000;
const root = join(import.meta.dirname, '..', '..');

describe('worker processes killed mid-turn and at random on DynamoDB Local and ElasticMQ', () => {
  const children = new Set<ChildProcess>();
  afterAll(() => {
    for (const child of children) child.kill('SIGKILL');
  });

  it(`keeps every invariant through ${KILLS} SIGKILLs, at least ${MID_TURN_KILLS} between receive and commit and ${MID_TURN_KILLS} between commit and ack`, {
    timeout: 600_000,
  }, async () => {
    const dynamodbEndpoint = inject('dynamodbEndpoint');
    const sqsEndpoint = inject('sqsEndpoint');
    const { dynamodb, sqs } = createAwsClients({ dynamodbEndpoint, sqsEndpoint });
    const suffix = randomUUID().slice(0, 8);
    const tableName = `crash-${suffix}`;
    await createTable(dynamodb, tableName);
    const { queueUrl, deadLetterQueueUrl } = await createFifoQueue(sqs, `crash-${suffix}`, {
      maxReceives: 1000,
      visibilityTimeoutMs: VISIBILITY_MS,
    });
    const store = new DynamoStore({ client: dynamodb, tableName });
    const queue = new SqsQueue({ client: sqs, queueUrl });
    const client = new Client({ actors: [Account], store, queue }).asSystem();

    const env = {
      ...process.env,
      BATON_DYNAMODB_ENDPOINT: dynamodbEndpoint,
      BATON_SQS_ENDPOINT: sqsEndpoint,
      TABLE_NAME: tableName,
      QUEUE_URL: queueUrl,
      VISIBILITY_MS: String(VISIBILITY_MS),
    };
    // One bundle, so that a restarted worker is up in a fraction of a second, as a warm Lambda.
    const bundle = join(mkdtempSync(join(tmpdir(), 'baton-crash-')), 'worker.mjs');
    await build({
      entryPoints: [join(import.meta.dirname, 'fixtures', 'workerProcess.ts')],
      bundle: true,
      platform: 'node',
      format: 'esm',
      outfile: bundle,
      banner: {
        js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
      },
      logLevel: 'error',
    });
    /** Each worker's turn as its markers tell it. */
    const trackers = new WeakMap<ChildProcess, TurnTracker>();
    /** Resolves when the worker has exited and all it wrote has been read. */
    const exited = new WeakMap<ChildProcess, Promise<void>>();
    /** An aimed kill: called with every marker of every worker; true when it killed. */
    let aim: ((child: ChildProcess, marker: TurnMarker) => boolean) | undefined;
    const startWorker = () => {
      const child = spawn(process.execPath, [bundle], {
        cwd: root,
        env,
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      children.add(child);
      const tracker = new TurnTracker();
      trackers.set(child, tracker);
      exited.set(child, new Promise((resolve) => child.on('close', () => resolve())));
      child.on('exit', () => children.delete(child));
      createInterface({ input: child.stdout! }).on('line', (line) => {
        const marker = readMarker(line);
        if (!marker) return;
        tracker.feed(marker);
        if (aim?.(child, marker)) aim = undefined;
      });
      return child;
    };
    const workers: ChildProcess[] = Array.from({ length: WORKERS }, startWorker);

    // The workload: transfers between accounts, each with its idempotency key.
    const random = seededRandom(Number(process.env.BATON_CRASH_SEED ?? 1));
    const names = Array.from({ length: ACCOUNTS }, (_, i) => `a${i}`);
    const transfers = Array.from({ length: TRANSFERS }, (_, i) => ({
      id: `t${i}`,
      from: names[Math.floor(random() * ACCOUNTS)]!,
      to: names[Math.floor(random() * ACCOUNTS)]!,
      amount: 1 + Math.floor(random() * 30),
    }));
    /** Transfer id → the message id its send returned: what `client.outcome` takes. */
    const messageIds = new Map<string, string>();
    const outcome = (t: { id: string }) => client.outcome(messageIds.get(t.id)!);
    const sending = (async () => {
      for (const t of transfers) {
        const { messageId } = await client.send(
          Account.ref(t.from),
          'transfer',
          { id: t.id, to: t.to, amount: t.amount },
          { idempotencyKey: t.id },
        );
        messageIds.set(t.id, messageId);
        await sleep(random() * 150);
      }
    })();

    // Two kills in three are aimed: the kill strikes as soon as a worker reports that it
    // received a batch with a first delivery, or that a commit landed — whichever phase has fewer
    // kills so far. The third strikes a worker that is up at a random moment 100–600 ms later.
    // An aimed kill that sees no such step within AIM_MS (the workload is over) strikes at random.
    const phases = new Map<KillPhase, number>(KILL_PHASES.map((p) => [p, 0]));
    const landed = (phase: KillPhase) => phases.get(phase) ?? 0;
    const aimAt = (step: 'received' | 'committed') =>
      new Promise<ChildProcess | undefined>((resolve) => {
        const timer = setTimeout(() => {
          aim = undefined;
          resolve(undefined);
        }, AIM_MS);
        aim = (child, marker) => {
          if (marker.step !== step || (marker.step === 'received' && !marker.firstDelivery)) {
            return false;
          }
          child.kill('SIGKILL');
          clearTimeout(timer);
          resolve(child);
          return true;
        };
      });
    let kills = 0;
    while (kills < KILLS) {
      let victim: ChildProcess | undefined;
      if (kills % 3 !== 2) {
        const behind = landed('between receive and commit') <= landed('between commit and ack');
        victim = await aimAt(behind ? 'received' : 'committed');
      } else {
        await sleep(100 + random() * 500);
      }
      if (!victim) {
        const up = workers.filter((w) => trackers.get(w)?.ready);
        if (up.length === 0) continue;
        victim = up[Math.floor(random() * up.length)]!;
        victim.kill('SIGKILL');
      }
      kills++;
      const index = workers.indexOf(victim);
      if (index < 0) throw new Error('killed a worker that was already replaced');
      workers[index] = startWorker();
      // Once it has exited, all it wrote before it died has been read: its last step is known.
      await exited.get(victim);
      const phase = trackers.get(victim)!.phase;
      phases.set(phase, landed(phase) + 1);
    }
    const where = [...phases].map(([phase, n]) => `${n} ${phase}`).join(', ');
    console.log(`crash test: where the ${kills} kills struck: ${where}`);
    await sending;

    // Quiescence: every transfer has an outcome, the queue is empty, the outboxes drained.
    const sweeper = new Sweeper(
      { actors: [Account], store, queue, logger: silentLogger },
      { minAgeMs: 0 },
    );
    const deadline = Date.now() + 240_000;
    for (;;) {
      const outcomes = await Promise.all(transfers.map(outcome));
      const inQueue = await queueDepth(sqs, queueUrl);
      await sweeper.sweep();
      const outboxes = await store.listOutboxActors(Date.now() + 1);
      if (outcomes.every((o) => o !== undefined) && inQueue === 0 && outboxes.length === 0) break;
      if (Date.now() > deadline)
        throw new Error(`not quiet: ${inQueue} in queue, outboxes ${outboxes.join(', ')}`);
      await sleep(500);
    }
    for (const worker of workers) worker.kill('SIGKILL');

    const states = await Promise.all(
      names.map(
        async (name) =>
          (await store.load(Account.ref(name).id))?.state as
            | { balance: number; log: string[]; fifoBreaks: string[] }
            | undefined,
      ),
    );
    const balances = states.map((s) => s?.balance ?? INITIAL_BALANCE);
    expect(balances.reduce((a, b) => a + b, 0)).toBe(INITIAL_BALANCE * ACCOUNTS);
    expect(states.flatMap((s) => s?.fifoBreaks ?? [])).toEqual([]);
    const effects = new Map<string, number>();
    for (const s of states) for (const e of s?.log ?? []) effects.set(e, (effects.get(e) ?? 0) + 1);
    let applied = 0;
    for (const t of transfers) {
      const count = (effect: string) => effects.get(`${t.id}:${effect}`) ?? 0;
      const result = await outcome(t);
      if (result?.ok) {
        applied++;
        expect(count('withdraw'), t.id).toBe(1);
        expect(count('deposit') + count('refuse'), t.id).toBe(1);
        expect(count('refund'), t.id).toBe(count('refuse'));
      } else {
        expect(result?.error.code, t.id).toBe(ErrorCode.REJECTED);
        expect(count('withdraw') + count('deposit') + count('refuse') + count('refund'), t.id).toBe(
          0,
        );
      }
    }
    expect([...effects.values()].every((n) => n === 1)).toBe(true);
    expect(await queueDepth(sqs, deadLetterQueueUrl)).toBe(0);
    expect(await store.listDeadLetters()).toEqual([]);
    console.log(
      `crash test: ${kills} kills of running workers survived; ${TRANSFERS} transfers (${applied} applied, ${TRANSFERS - applied} rejected), ${effects.size} effects counted once each`,
    );
    expect(landed('between receive and commit')).toBeGreaterThanOrEqual(MID_TURN_KILLS);
    expect(landed('between commit and ack')).toBeGreaterThanOrEqual(MID_TURN_KILLS);
  });
});

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function queueDepth(
  sqs: ReturnType<typeof createAwsClients>['sqs'],
  queueUrl: string,
): Promise<number> {
  const { Attributes = {} } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: [
        'ApproximateNumberOfMessages',
        'ApproximateNumberOfMessagesNotVisible',
        'ApproximateNumberOfMessagesDelayed',
      ],
    }),
  );
  return (
    Number(Attributes.ApproximateNumberOfMessages ?? 0) +
    Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0) +
    Number(Attributes.ApproximateNumberOfMessagesDelayed ?? 0)
  );
}
