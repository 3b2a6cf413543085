/**
 * The IAM actions each part of Baton on AWS calls, declared beside the code that calls them, for
 * infrastructure code (a CDK construct, a policy document) and the README to read. A test runs
 * each part against DynamoDB Local and ElasticMQ, records every AWS call it makes, and checks
 * that the actions declared here cover them.
 *
 * Resources are named by role, not ARN: `table` (the actor table), `outboxIndex` (its sparse
 * `outbox` index, `<table ARN>/index/outbox`) and `inbox` (the FIFO inbox queue).
 */

/** A resource of Baton's stack, by its role. */
export type IamResource = 'table' | 'outboxIndex' | 'inbox';

/** Actions on resources: one statement of a policy. */
export interface IamStatement {
  readonly actions: readonly string[];
  readonly resources: readonly IamResource[];
}

/** The store as a worker uses it. A transaction needs the action of each item it writes. */
const store: IamStatement = {
  actions: [
    'dynamodb:GetItem',
    'dynamodb:PutItem',
    'dynamodb:DeleteItem',
    'dynamodb:Query',
    'dynamodb:BatchGetItem',
    'dynamodb:BatchWriteItem',
  ],
  resources: ['table'],
};

/** Sends into the inbox: ingress, drains and redrives. `SendMessageBatch` is `SendMessage`. */
const send: IamStatement = { actions: ['sqs:SendMessage'], resources: ['inbox'] };

/** Receiving from the inbox; `GetQueueAttributes` also reads its identity (creation time). */
const receive: IamStatement = {
  actions: [
    'sqs:ReceiveMessage',
    'sqs:DeleteMessage',
    'sqs:ChangeMessageVisibility',
    'sqs:GetQueueAttributes',
  ],
  resources: ['inbox'],
};

/** Reading and retiring outbox items: what a drain does to the table. */
const drainTable: IamStatement = {
  actions: ['dynamodb:Query', 'dynamodb:BatchWriteItem'],
  resources: ['table'],
};

/**
 * The policy each part needs, by the Lambda handler that runs it: no more than it calls.
 *
 * @example
 * for (const { actions, resources } of BATON_IAM.worker) {
 *   role.addToPolicy(new PolicyStatement({ actions: [...actions], resources: resources.map(arnOf) }));
 * }
 */
export const BATON_IAM = {
  /** `workerHandler` (and `Worker.poll`): turns, drains, acks and releases. */
  worker: [store, send, receive],
  /** `drainHandler`: reads, sends and deletes outbox items. */
  drain: [drainTable, send],
  /** `sweeperHandler`: finds old outbox items through the index, then drains them. */
  sweeper: [drainTable, { actions: ['dynamodb:Query'], resources: ['outboxIndex'] }, send],
  /** `ingressHandler` and `Client`: reads outcomes, sends. */
  ingress: [{ actions: ['dynamodb:GetItem'], resources: ['table'] }, send],
} as const satisfies Record<string, readonly IamStatement[]>;
