/**
 * A workflow's callback completed by an outside system through the HTTP ingress, on DynamoDB
 * Local and ElasticMQ: the token `ctx.createCallback()` gave completes it once; a forged token
 * (right instance and command, wrong secret) is refused at the door as for a type that takes
 * nothing from clients (the workflow is internal), the same token again is told it completed
 * once, and neither changes anything.
 */
import { randomUUID } from 'node:crypto';
import { createAwsClients, createFifoQueue, createTable, DynamoStore, SqsQueue } from '@baton/aws';
import { ingressHandler, workerHandler } from '@baton/aws/lambda';
import { LocalSqsEventSource } from '@baton/aws/local';
import { defineApp, silentLogger, type WorkflowState, workflow } from '@baton/core';
import { Client } from '@baton/core/client';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, inject, it } from 'vitest';
import * as z from 'zod';

/** Instance id → the tokens its `publish` step handed out (the outside system's inbox). */
const published = new Map<string, string[]>();

const Approval = workflow({
  name: 'approval',
  input: z.object({}),
  run: async (ctx) => {
    const callback = ctx.createCallback<string>('approved');
    await ctx.step('publish', () => {
      published.set(ctx.id, [...(published.get(ctx.id) ?? []), callback.token]);
      return null;
    });
    return { approvedBy: await callback.result };
  },
});

function post(path: string, body: unknown): APIGatewayProxyEventV2 {
  return {
    rawPath: path,
    body: JSON.stringify(body),
    isBase64Encoded: false,
    headers: { 'content-type': 'application/json' },
    requestContext: { http: { method: 'POST' } },
  } as unknown as APIGatewayProxyEventV2;
}

/** A token for the same instance and command with another secret. */
function forge(token: string): string {
  const [actorId, seq] = JSON.parse(Buffer.from(token, 'base64url').toString()) as unknown[];
  return Buffer.from(JSON.stringify([actorId, seq, 'f'.repeat(32)])).toString('base64url');
}

describe("a workflow's callback over the HTTP ingress on DynamoDB Local and ElasticMQ", () => {
  it('completes once with its token; a forged token and the same token again are refused', {
    timeout: 120_000,
  }, async () => {
    const { dynamodb, sqs } = createAwsClients({
      dynamodbEndpoint: inject('dynamodbEndpoint'),
      sqsEndpoint: inject('sqsEndpoint'),
    });
    const tableName = `wfcallback-${randomUUID().slice(0, 8)}`;
    await createTable(dynamodb, tableName);
    const { queueUrl } = await createFifoQueue(sqs, tableName, { visibilityTimeoutMs: 2000 });
    const store = new DynamoStore({ client: dynamodb, tableName });
    const queue = new SqsQueue({ client: sqs, queueUrl });
    const { actors } = defineApp({ workflows: [Approval] });
    const handle = ingressHandler({ actors, store, queue, askTimeoutMs: 20_000 });
    const source = new LocalSqsEventSource({
      client: sqs,
      queueUrl,
      handler: workerHandler({ actors, store, queue, logger: silentLogger }),
      waitSeconds: 0,
    });
    /** Runs worker turns until `done` holds. */
    const pumpUntil = async (done: () => boolean) => {
      for (let i = 0; i < 100 && !done(); i++) {
        await source.pollOnce();
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    /** Asks the instance's `callback` handler over HTTP, as an outside system does. */
    const complete = async (token: string, value: string) => {
      let answered = false;
      const asked = handle(
        post('/ask', { to: ref.id, name: 'callback', payload: { token, ok: true, value } }),
      ).finally(() => {
        answered = true;
      });
      await pumpUntil(() => answered);
      const answer = await asked;
      return { status: answer.statusCode, body: JSON.parse(answer.body) };
    };

    const ref = await new Client({ actors, store, queue }).asSystem().start(Approval, 'a1', {});
    await pumpUntil(() => published.has('a1'));
    const [token] = published.get('a1')!;
    expect(token).toBeDefined();

    const forged = await complete(forge(token!), 'mallory');
    expect(forged.status).toBe(403);
    // Refused at the door as a type that takes nothing from clients is: the workflow is
    // internal, and a forged token must not tell it exists.
    expect(forged.body.error).toMatchObject({
      code: 'FORBIDDEN',
      message: expect.stringMatching(/^no actor type "wf-approval" takes messages from clients/),
    });

    const first = await complete(token!, 'alice');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ value: { accepted: true } });

    const again = await complete(token!, 'bob');
    expect(again.status).toBe(422);
    expect(again.body.error).toMatchObject({
      code: 'REJECTED',
      message: expect.stringMatching(/completed already.*cannot be used again/),
    });

    const state = (await store.load(ref.id))?.state as WorkflowState;
    expect(state.status).toBe('completed');
    expect(state.output).toEqual({ approvedBy: 'alice' });
    expect(published.get('a1')).toHaveLength(1);
  });
});
