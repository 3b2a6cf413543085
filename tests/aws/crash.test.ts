/**
 * The crash test on the real AWS parts: worker processes (the Lambda worker handler behind a
 * local SQS poller) are killed with SIGKILL at random moments while a bank workload runs on
 * DynamoDB Local and ElasticMQ, and restarted. After quiescence every invariant of the
 * simulation holds: money conserved, each transfer applied exactly once, per-channel FIFO,
 * outboxes and queues empty.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { createAwsClients, createFifoQueue, createTable, DynamoStore, SqsQueue } from '@baton/aws';
import { Client, ErrorCode, Sweeper, seededRandom, silentLogger } from '@baton/core';
import { build } from 'esbuild';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { Account, INITIAL_BALANCE } from '../simulation/bank-model.ts';

const KILLS = Number(process.env.BATON_CRASH_KILLS ?? 50);
const WORKERS = 3;
const ACCOUNTS = 4;
const TRANSFERS = 150;
const VISIBILITY_MS = 2000;
const root = join(import.meta.dirname, '..', '..');

describe('worker processes killed at random on DynamoDB Local and ElasticMQ', () => {
  const children = new Set<ChildProcess>();
  afterAll(() => {
    for (const child of children) child.kill('SIGKILL');
  });

  it(`keeps every invariant through ${KILLS} SIGKILLs`, { timeout: 600_000 }, async () => {
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
    const client = new Client({ actors: [Account], store, queue });

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
    const startWorker = () => {
      const child = spawn(process.execPath, [bundle], {
        cwd: root,
        env,
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      children.add(child);
      child.on('exit', () => children.delete(child));
      child.stdout?.on('data', () => ready.add(child));
      return child;
    };
    /** Workers that finished starting: a kill of one of these strikes it at work. */
    const ready = new WeakSet<ChildProcess>();
    const workers = Array.from({ length: WORKERS }, startWorker);

    // The workload: transfers between accounts, each with its idempotency key.
    const random = seededRandom(Number(process.env.BATON_CRASH_SEED ?? 1));
    const names = Array.from({ length: ACCOUNTS }, (_, i) => `a${i}`);
    const transfers = Array.from({ length: TRANSFERS }, (_, i) => ({
      id: `t${i}`,
      from: names[Math.floor(random() * ACCOUNTS)]!,
      to: names[Math.floor(random() * ACCOUNTS)]!,
      amount: 1 + Math.floor(random() * 30),
    }));
    const sending = (async () => {
      for (const t of transfers) {
        await client.send(
          Account.ref(t.from),
          'transfer',
          { id: t.id, to: t.to, amount: t.amount },
          { idempotencyKey: t.id },
        );
        await sleep(random() * 150);
      }
    })();

    // Every 100–600 ms kill a random worker that is up and polling, and start a new one.
    let kills = 0;
    while (kills < KILLS) {
      await sleep(100 + random() * 500);
      const running = workers.map((w, i) => [w, i] as const).filter(([w]) => ready.has(w));
      if (running.length === 0) continue;
      const [victim, index] = running[Math.floor(random() * running.length)]!;
      victim.kill('SIGKILL');
      kills++;
      workers[index] = startWorker();
    }
    await sending;

    // Quiescence: every transfer has an outcome, the queue is empty, the outboxes drained.
    const sweeper = new Sweeper(
      { actors: [Account], store, queue, logger: silentLogger },
      { minAgeMs: 0 },
    );
    const deadline = Date.now() + 240_000;
    for (;;) {
      const outcomes = await Promise.all(transfers.map((t) => client.outcome(t.id)));
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
      const outcome = await client.outcome(t.id);
      if (outcome?.ok) {
        applied++;
        expect(count('withdraw'), t.id).toBe(1);
        expect(count('deposit') + count('refuse'), t.id).toBe(1);
        expect(count('refund'), t.id).toBe(count('refuse'));
      } else {
        expect(outcome?.error.code, t.id).toBe(ErrorCode.REJECTED);
        expect(count('withdraw') + count('deposit') + count('refuse') + count('refund'), t.id).toBe(
          0,
        );
      }
    }
    expect([...effects.values()].every((n) => n === 1)).toBe(true);
    expect(await queueDepth(sqs, deadLetterQueueUrl)).toBe(0);
    console.log(
      `crash test: ${kills} kills of running workers survived; ${TRANSFERS} transfers (${applied} applied, ${TRANSFERS - applied} rejected), ${effects.size} effects counted once each`,
    );
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
