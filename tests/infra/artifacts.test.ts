/**
 * What the construct deploys runs: the bank's stack is synthesized as infra/ synthesizes it, and
 * the Lambda bundles synth produced (the cdk.out assets, not the sources) run against DynamoDB
 * Local and ElasticMQ — the worker behind the local SQS event source, the stream function behind
 * the local stream event source, the WebSocket function behind the local WebSocket gateway —
 * each with the environment the template gives it, its resources resolved to local ones.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  createAwsClients,
  createConnectionsTable,
  createFifoQueue,
  createTable,
  createTimerQueue,
} from '@baton/aws';
import {
  LocalSqsEventSource,
  LocalStreamEventSource,
  LocalWebSocketGateway,
} from '@baton/aws/local';
import { createStreamClients } from '@baton/aws/websocket';
import { BatonClient, type QueryState } from '@baton/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { WebSocket } from 'ws';
import { demoToken } from '../../examples/bank/src/demoAuth.ts';
import { until } from '../aws/fixtures/webSocketStack.ts';
import { synthBank } from './fixtures/synthBank.ts';

type Cfn = string | { Ref: string } | { 'Fn::Join': [string, Cfn[]] } | Record<string, unknown>;
interface FunctionResource {
  Type: string;
  Properties: { Environment: { Variables: Record<string, Cfn> } };
  Metadata: Record<string, string>;
}

const root = new URL('../../', import.meta.url).pathname;
const outdir = mkdtempSync(join(tmpdir(), 'baton-cdk-out-'));
const saved = { ...process.env };
const handlers: Record<string, (event?: unknown) => Promise<any>> = {};
const environments: Record<string, Record<string, string>> = {};
let gateway: LocalWebSocketGateway;
let worker: LocalSqsEventSource;
let stream: LocalStreamEventSource;

/** A template value with the stack's references replaced by the local resources. */
function resolver(local: Record<string, string>, webSocketApi: string, endpoint: string) {
  const resolve = (value: Cfn): string => {
    if (typeof value === 'string') return value;
    if ('Ref' in value) {
      const found = local[value.Ref as string];
      if (found === undefined) throw new Error(`no local resource for ${value.Ref}`);
      return found;
    }
    if ('Fn::GetAtt' in value) {
      const [id, attribute] = value['Fn::GetAtt'] as [string, string];
      const found = local[`${id}.${attribute}`];
      if (found === undefined) throw new Error(`no local attribute ${id}.${attribute}`);
      return found;
    }
    if ('Fn::Join' in value) {
      // The stage's callback URL, https://<api>.execute-api.<region>.<suffix>/<stage>: the
      // local gateway's management endpoint stands for it.
      if (JSON.stringify(value).includes(`"Ref":"${webSocketApi}"`)) return endpoint;
      const [separator, parts] = value['Fn::Join'] as [string, Cfn[]];
      return parts.map(resolve).join(separator);
    }
    throw new Error(`cannot resolve ${JSON.stringify(value)} locally`);
  };
  return resolve;
}

beforeAll(async () => {
  // Synthesize, bundling every function for real.
  // Path and asset metadata, as the CDK CLI asks for them: they name each function's bundle.
  const template = await synthBank<{ Resources: Record<string, FunctionResource> }>(outdir, {
    'aws:cdk:enable-path-metadata': true,
    'aws:cdk:enable-asset-metadata': true,
  });
  // The bundles leave the AWS SDK to the runtime; here the runtime's SDK is the workspace's.
  symlinkSync(join(root, 'packages/aws/node_modules'), join(outdir, 'node_modules'), 'dir');

  const dynamodbEndpoint = inject('dynamodbEndpoint');
  const sqsEndpoint = inject('sqsEndpoint');
  const { dynamodb, sqs } = createAwsClients({ dynamodbEndpoint, sqsEndpoint });
  const name = `artifacts-${randomUUID().slice(0, 8)}`;
  const [, inbox, , timerQueue] = await Promise.all([
    createTable(dynamodb, name),
    createFifoQueue(sqs, name, { visibilityTimeoutMs: 10_000 }),
    createConnectionsTable(dynamodb, `${name}-connections`),
    createTimerQueue(sqs, name),
  ]);
  const byType = (type: string, where: (r: any) => boolean = () => true) =>
    Object.entries(template.Resources).find(([, r]) => r.Type === type && where(r))![0];
  const local = {
    [byType('AWS::DynamoDB::Table', (r) => r.Properties.StreamSpecification)]: name,
    [byType('AWS::DynamoDB::Table', (r) => !r.Properties.StreamSpecification)]:
      `${name}-connections`,
    [byType('AWS::SQS::Queue', (r) => r.Properties.FifoQueue && r.Properties.RedrivePolicy)]:
      inbox.queueUrl,
    [Object.keys(template.Resources).find((id) => id.startsWith('BankTimers'))!]:
      timerQueue.queueUrl,
    // The page's CloudFront domain, which names the one origin allowed to open a socket.
    [`${byType('AWS::CloudFront::Distribution')}.DomainName`]: PAGE_DOMAIN,
  };
  let handleWebSocket: (event: any) => Promise<any> = async () => undefined;
  gateway = await LocalWebSocketGateway.start({ handler: (event) => handleWebSocket(event) });
  const resolve = resolver(local, byType('AWS::ApiGatewayV2::Api'), gateway.managementEndpoint);

  // Each function's bundle, loaded with the environment its template entry gives it.
  for (const resource of Object.values(template.Resources)) {
    const path = resource.Metadata['aws:cdk:path']!;
    if (resource.Type !== 'AWS::Lambda::Function' || !path.startsWith('BatonBank/Bank/')) continue;
    const part = /\/(\w+)Function\/Resource$/.exec(path)![1]!;
    const variables = resource.Properties.Environment.Variables;
    environments[part] = Object.fromEntries(
      Object.entries(variables).map(([key, value]) => [key, resolve(value)]),
    );
    Object.assign(process.env, environments[part], {
      BATON_DYNAMODB_ENDPOINT: dynamodbEndpoint,
      BATON_SQS_ENDPOINT: sqsEndpoint,
    });
    const bundle = join(outdir, resource.Metadata['aws:asset:path']!, 'index.mjs');
    handlers[part] = (await import(pathToFileURL(bundle).href)).handler;
  }
  handleWebSocket = handlers.Websocket!;
  worker = new LocalSqsEventSource({
    client: sqs,
    queueUrl: inbox.queueUrl,
    handler: handlers.Worker!,
    visibilityTimeoutMs: 10_000,
  });
  worker.start();
  stream = new LocalStreamEventSource({
    ...createStreamClients({ dynamodbEndpoint }),
    tableName: name,
    handler: handlers.Stream!,
    pollMs: 50,
  });
  await stream.start();
}, 240_000);

afterAll(async () => {
  await gateway?.close();
  await Promise.all([worker?.stop(), stream?.stop()]);
  process.env = saved;
  rmSync(outdir, { recursive: true, force: true });
});

/** The domain that stands for the bank page's CloudFront distribution. */
const PAGE_DOMAIN = 'd111111abcdef8.cloudfront.net';

/** The bank's demo tokens, signed with this test's secret (the deployed app reads it). */
const SECRET = 'artifacts-test-secret-of-at-least-32-bytes';
const token = (userId: string, role: 'customer' | 'admin' = 'customer') =>
  demoToken({ userId, role }, { key: SECRET });

/** An API Gateway HTTP API event for the ingress, signed in as alice. */
function http(method: string, path: string, body?: unknown) {
  return {
    rawPath: path,
    body: body === undefined ? undefined : JSON.stringify(body),
    isBase64Encoded: false,
    headers: { authorization: `Bearer ${token('alice')}`, 'content-type': 'application/json' },
    requestContext: { http: { method } },
  };
}

describe('the functions the construct deploys', () => {
  it('have the environment the template gives them, every reference resolved', () => {
    expect(Object.keys(environments).sort()).toEqual([
      'ConnectionSweeper',
      'Ingress',
      'Relay',
      'Stream',
      'Sweeper',
      'Websocket',
      'Worker',
    ]);
    for (const variables of Object.values(environments)) {
      expect(variables.BATON_WEBSOCKET_ENDPOINT).toBe(gateway.managementEndpoint);
      expect(variables.BATON_INBOX_URL).toMatch(/\.fifo$/);
      expect(variables.BATON_TIMER_QUEUE_URL).toMatch(/-timers$/);
    }
  });

  it("let only the bank page's origin open a socket from a browser, from the deployed WebSocket bundle", async () => {
    process.env.BANK_DEMO_SECRET = SECRET;
    expect(environments.Websocket!.BATON_ALLOWED_ORIGINS).toBe(`https://${PAGE_DOMAIN}`);
    const connect = (connectionId: string, origin: string) =>
      handlers.Websocket!({
        requestContext: {
          routeKey: '$connect',
          eventType: 'CONNECT',
          connectionId,
          domainName: 'local',
          stage: 'live',
          requestTimeEpoch: Date.now(),
          connectedAt: Date.now(),
        },
        headers: { Origin: origin },
        queryStringParameters: { token: token('alice') },
        isBase64Encoded: false,
      });
    const refused = await connect('artifact-evil=', 'https://evil.example');
    expect(refused.statusCode).toBe(403);
    expect(refused.body).toContain(`only pages on https://${PAGE_DOMAIN} may`);
    expect((await connect('artifact-page=', `https://${PAGE_DOMAIN}`)).statusCode).toBe(200);
  });

  it('relay a due timer into the inbox and re-arm a later one, from the deployed relay bundle', async () => {
    const due = { actorId: 'account/alice', id: 'artifact', gen: 'g', at: 0, name: 'deposit' };
    const later = { ...due, at: Date.now() + 3_600_000 };
    const records = [due, later].map((ref, i) => ({
      messageId: `m${i}`,
      body: JSON.stringify(ref),
    }));
    expect(await handlers.Relay!({ Records: records })).toEqual({ batchItemFailures: [] });
  });

  it('move money through the ingress and the worker, and push it to a subscriber', async () => {
    process.env.BANK_DEMO_SECRET = SECRET;
    const deposit = await handlers.Ingress!(
      http('POST', '/send', {
        to: 'account/alice',
        name: 'deposit',
        payload: { amount: 100 },
        idempotencyKey: 'artifact-deposit',
      }),
    );
    expect(deposit.statusCode).toBe(202);

    // An admin sees both accounts.
    const browser = new BatonClient({
      url: gateway.url,
      WebSocket,
      token: token('teller', 'admin'),
    });
    const seen: QueryState<{ total: number; rows: { account: string; balance: number }[] }>[] = [];
    const stop = browser.subscribe('balances', { accounts: ['alice', 'bob'] }, (state) =>
      seen.push(state as never),
    );
    try {
      await until(() => seen.some((s) => s.data?.total === 100), 'the deposit pushed');
      const transfer = await handlers.Ingress!(
        http('POST', '/ask', {
          to: 'account/alice',
          name: 'transfer',
          payload: { to: 'bob', amount: 30 },
          idempotencyKey: 'artifact-transfer',
        }),
      );
      expect(transfer.statusCode).toBe(200);
      expect(JSON.parse(transfer.body)).toEqual({ value: 70 });
      const settled = await until(
        () => seen.find((s) => s.data?.rows.find((row) => row.account === 'bob')?.balance === 30),
        'the credit pushed',
      );
      expect(settled.data).toEqual({
        rows: [
          { account: 'alice', balance: 70, closed: false },
          { account: 'bob', balance: 30, closed: false },
        ],
        total: 100,
      });
    } finally {
      stop();
      browser.close();
    }
  });

  it('sweep and collect connections on their own', async () => {
    expect(await handlers.Sweeper!()).toMatchObject({ failed: 0 });
    expect(await handlers.ConnectionSweeper!()).toEqual({ removed: expect.any(Number) });
  });
});
