/**
 * 4f, 4g. Fan-out on the production path: API Gateway's WebSocket API (emulated on loopback by
 * `LocalWebSocketGateway`) and the Lambda on the table's DynamoDB stream (fed by
 * `LocalStreamEventSource`), against a hand-written app on the same parts. One wallet, N
 * connections with one subscription each (as N browsers), one writer depositing: 1,000 (4f) and
 * 10,000 (4g) connections.
 *
 * Each side's gateway and Lambdas run in a process of their own (`gatewaySide.ts`), and so do
 * each side's clients (`gatewayClients.ts`): 10,000 connections hold 20,000 sockets, the most
 * file descriptors a process may have here. This process writes, reads the table's stream once
 * and hands its events to the side being measured. Figure: time from the commit until every
 * connection has the new balance.
 */
import { randomUUID } from 'node:crypto';
import {
  CreateTableCommand,
  DeleteTableCommand,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { createConnectionsTable, DynamoStore, SqsQueue } from '@baton/aws';
import { LocalStreamEventSource } from '@baton/aws/local';
import { silentLogger } from '@baton/core';
import { createEngine, runTurn } from '@baton/core/engine';
import type { Sample } from '../measure.ts';
import { forkPart, now, type Part } from '../parts.ts';
import type { Row } from '../report.ts';
import { ingress, Wallet } from './actors.ts';
import { STREAM_POLL_MS } from './backends.ts';
import type { CrowdMethods } from './gatewayClients.ts';
import type { SideMethods } from './gatewaySide.ts';
import { comparePushes, pushRow } from './pushComparison.ts';
import type { Target } from './target.ts';

/** Connections opening at once while the bench sets up. */
const OPENING = 20;

export interface GatewayFanOutOptions {
  readonly target: Target;
  /** `4f`, `4g`: the row's id. */
  readonly id: string;
  /** Connections, one subscription each. */
  readonly subscribers: number;
  /** Changes per round. */
  readonly changes: number;
  readonly rounds: number;
  readonly warmup: number;
  readonly budget?: number;
  readonly log: (line: string) => void;
}

type Side = 'baton' | 'push';

export async function gatewayFanOut(options: GatewayFanOutOptions): Promise<Row> {
  const { target, subscribers, log } = options;
  const stack = await openStack(target, subscribers, log);
  try {
    const round = (side: Side) => () => stack.measure(side, options.changes);
    const compared = await comparePushes(round, options.rounds, options.warmup);
    const n = subscribers.toLocaleString('en-US');
    log(
      `  ${compared.summary} from commit to all ${n} connections ` +
        `(${options.changes} changes × ${options.rounds} rounds per side)`,
    );
    const posts = await stack.postsPerChange();
    log(`  PostToConnection calls per change: Baton ${posts.baton}, hand-written ${posts.push}`);
    const bench = `${options.id}. fan-out to ${n} connections through API Gateway (local gateway, ${target.label})`;
    return pushRow(bench, compared, options.budget);
  } finally {
    await stack.close();
  }
}

/** Both apps on one table and its stream, each behind its own gateway, in processes of their own. */
async function openStack(target: Target, subscribers: number, log: (line: string) => void) {
  const [tableName, { queueUrl }] = await Promise.all([
    target.table('gwfan'),
    target.queue('gwfan'),
  ]);
  const { dynamodb, sqs } = target.clients();
  const connectionsTable = `${tableName}-connections`;
  const pushTable = `${tableName}-push`;
  await Promise.all([
    createConnectionsTable(dynamodb, connectionsTable),
    createSubscribersTable(dynamodb, pushTable),
  ]);
  const store = new DynamoStore({ client: dynamodb, tableName });
  const queue = new SqsQueue({ client: sqs, queueUrl });
  const walletKey = `w-${randomUUID().slice(0, 8)}`;
  const walletId = Wallet.ref(walletKey).id;
  const writer = createEngine({ actors: [Wallet], store, queue, logger: silentLogger });
  let deposits = 0;
  const deposit = async () => {
    deposits++;
    const envelope = ingress(`dep-${walletKey}-${deposits}`, walletId, 'deposit', { amount: 1 });
    await runTurn(writer, walletId, [{ envelope, queueSeq: String(deposits) }]);
    return deposits;
  };

  const parts: Part<SideMethods | CrowdMethods>[] = [];
  const fork = <M extends SideMethods | CrowdMethods>(module: string): Part<M> => {
    const part = forkPart<M>(new URL(module, import.meta.url));
    parts.push(part);
    return part;
  };
  const sides = {
    baton: fork<SideMethods>('./gatewaySide.ts'),
    push: fork<SideMethods>('./gatewaySide.ts'),
  };
  const crowds = {
    baton: fork<CrowdMethods>('./gatewayClients.ts'),
    push: fork<CrowdMethods>('./gatewayClients.ts'),
  };
  const config = {
    endpoints: target.endpoints,
    tableName,
    connectionsTable,
    pushTable,
    queueUrl,
    walletId,
  };

  // One stream, its records to the side being measured.
  let active: Side = 'baton';
  const stream = new LocalStreamEventSource({
    dynamodb,
    streams: target.streamClients().streams,
    tableName,
    handler: (event) => sides[active].call('stream', event),
    pollMs: STREAM_POLL_MS,
  });
  let changes = 0;
  let postsBefore = { baton: 0, push: 0 };
  try {
    const urls = {
      baton: await sides.baton.call('start', { ...config, side: 'baton' }),
      push: await sides.push.call('start', { ...config, side: 'push' }),
    };
    await stream.start();
    await deposit();
    const started = now();
    for (const side of ['baton', 'push'] as const) {
      const crowd = {
        side,
        url: urls[side],
        count: subscribers,
        opening: OPENING,
        walletKey,
        walletId,
      };
      await crowds[side].call('open', crowd);
    }
    while ((await sides.push.call('subscribed')) < subscribers) {
      await new Promise((r) => setTimeout(r, 10));
    }
    log(
      `  ${subscribers.toLocaleString('en-US')} connections a side opened and subscribed in ${((now() - started) / 1000).toFixed(1)} s`,
    );
    // The subscriptions' first results are not a change's.
    postsBefore = { baton: await sides.baton.call('posts'), push: await sides.push.call('posts') };
  } catch (error) {
    await closeAll();
    throw error;
  }

  async function closeAll() {
    await stream.stop();
    // Ended without a goodbye: closing 10,000 connections would run as many `$disconnect`s.
    await Promise.all(parts.map((part) => part.stop()));
    await Promise.allSettled(
      [connectionsTable, pushTable].map((TableName) =>
        dynamodb.send(new DeleteTableCommand({ TableName })),
      ),
    );
  }

  return {
    /** Commits `count` deposits, each once every connection of `side` saw the last. */
    async measure(side: Side, count: number): Promise<Sample> {
      active = side;
      const latencies: number[] = [];
      for (let i = 0; i < count; i++) {
        await crowds[side].call('arm', deposits + 1, 120_000);
        const reached = crowds[side].call('reached');
        // From the commit's start, as rows 4a–4e: a push may land before the commit's answer.
        const started = now();
        await deposit();
        const at = await reached;
        if (!(at > started)) {
          throw new Error(`fan-out: deposit ${deposits} seen by all before its commit started`);
        }
        latencies.push((at - started) * 1e6);
        changes++;
      }
      return { ns: latencies.reduce((a, b) => a + b, 0), ops: count, latencies };
    },
    /** Each side's posts per change it was measured on (both sides were measured as often). */
    async postsPerChange() {
      const per = async (side: Side) => {
        const posts = (await sides[side].call('posts')) - postsBefore[side];
        return changes === 0 ? 0 : Math.round(posts / (changes / 2));
      };
      return { baton: await per('baton'), push: await per('push') };
    },
    close: closeAll,
  };
}

/** The hand-written app's subscribers: connection ids by wallet. */
async function createSubscribersTable(client: DynamoDBClient, TableName: string): Promise<void> {
  await client.send(
    new CreateTableCommand({
      TableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
      ],
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
    }),
  );
}
