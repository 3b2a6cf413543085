/**
 * The IAM actions each part of Baton on AWS calls, declared beside the code that calls them, for
 * infrastructure code (a CDK construct, a policy document) and the README to read. A test runs
 * each part against DynamoDB Local, ElasticMQ and the local WebSocket gateway, records every AWS
 * call it makes, and checks that the actions declared here are exactly those.
 *
 * Resources are named by role, not ARN:
 * - `table`: the actor table (`createTable`).
 * - `outboxIndex`: its sparse `outbox` index, `<table ARN>/index/outbox`.
 * - `outcomes`: the table's idempotency records only — the outcomes of client messages, never an
 *   actor's record: the table's ARN on condition that every partition key the call names begins
 *   with `I#` ({@link OUTCOME_LEADING_KEYS} as `dynamodb:LeadingKeys`). A statement on it names
 *   no other resource.
 * - `claims`: the table's key claims only (`Store.claimKey`): the table's ARN on condition that
 *   every partition key the call names begins with `K#` ({@link CLAIM_LEADING_KEYS}). Writing a
 *   claim lets no one write an outcome or an actor's record.
 * - `actorRecords`: the partitions of actors only (their records, and what an actor's partition
 *   holds beside: outbox items, timers, dead letters): the table's ARN on condition that every
 *   partition key the call names begins with `A#` ({@link ACTOR_RECORD_LEADING_KEYS}). Not the
 *   outcomes, key claims, effect marks or the shards' index items the table holds apart.
 * - `workflowRecords`: the records of workflow instances only (read by `GET /workflows/<name>/<id>`
 *   and by the check of a callback's token at the door): the table's ARN on condition that every
 *   partition key the call names begins with `A#wf-` ({@link WORKFLOW_RECORD_LEADING_KEYS}; no
 *   actor but a workflow's may be named `wf-…`).
 * - `inbox`: the FIFO inbox queue.
 * - `timerQueue`: the standard queue durable timers are armed on (`createTimerQueue`).
 * - `connections`: the WebSocket handlers' connections table (`createConnectionsTable`).
 * - `tableStream`: the actor table's DynamoDB stream, `<table ARN>/stream/*`. `ListStreams`
 *   takes no resource: grant it on `*` (as CDK's `grantStreamRead` does).
 * - `webSocketApi`: the WebSocket API's management (`@connections`) API, whose ARNs are
 *   `arn:aws:execute-api:<region>:<account>:<api id>/<stage>/<method>/@connections/<id>`. Grant
 *   it with both `<method>` and `<id>` as `*`: the method is the call's (`POST` pushes, `DELETE`
 *   closes, `GET` reads), so a resource naming `POST` alone refuses `DeleteConnection`.
 */

import { actorPk, CLAIM_PK_PREFIX, IDEMPOTENCY_PK_PREFIX } from './dynamodb/tableLayout.ts';

/**
 * The partition keys the `outcomes` resource covers, as an IAM condition on the table:
 * `{ "ForAllValues:StringLike": { "dynamodb:LeadingKeys": [OUTCOME_LEADING_KEYS] } }`.
 *
 * @example
 * new PolicyStatement({
 *   actions: ['dynamodb:GetItem'],
 *   resources: [table.tableArn],
 *   conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [OUTCOME_LEADING_KEYS] } },
 * });
 */
export const OUTCOME_LEADING_KEYS = `${IDEMPOTENCY_PK_PREFIX}*`;

/**
 * The partition keys the `workflowRecords` resource covers, as an IAM condition on the table:
 * `{ "ForAllValues:StringLike": { "dynamodb:LeadingKeys": [WORKFLOW_RECORD_LEADING_KEYS] } }`.
 * A workflow's actor type is `wf-<name>`, a prefix the core reserves for them.
 */
export const WORKFLOW_RECORD_LEADING_KEYS = `${actorPk('wf-')}*`;

/**
 * The partition keys the `actorRecords` resource covers, as an IAM condition on the table:
 * `{ "ForAllValues:StringLike": { "dynamodb:LeadingKeys": [ACTOR_RECORD_LEADING_KEYS] } }`.
 */
export const ACTOR_RECORD_LEADING_KEYS = `${actorPk('')}*`;

/**
 * The partition keys the `claims` resource covers, as an IAM condition on the table:
 * `{ "ForAllValues:StringLike": { "dynamodb:LeadingKeys": [CLAIM_LEADING_KEYS] } }`.
 *
 * @example
 * new PolicyStatement({
 *   actions: ['dynamodb:PutItem'],
 *   resources: [table.tableArn],
 *   conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [CLAIM_LEADING_KEYS] } },
 * });
 */
export const CLAIM_LEADING_KEYS = `${CLAIM_PK_PREFIX}*`;

/** A resource of Baton's stack, by its role. */
export type IamResource =
  | 'table'
  | 'outcomes'
  | 'claims'
  | 'actorRecords'
  | 'workflowRecords'
  | 'outboxIndex'
  | 'inbox'
  | 'timerQueue'
  | 'connections'
  | 'tableStream'
  | 'webSocketApi';

/** Actions on resources: one statement of a policy. */
export interface IamStatement {
  readonly actions: readonly string[];
  readonly resources: readonly IamResource[];
}

/**
 * The store as a worker uses it. A transaction needs the action of each item it writes: an
 * outcome page is a PutItem when a commit begins it, an UpdateItem after.
 */
const store: IamStatement = {
  actions: [
    'dynamodb:GetItem',
    'dynamodb:PutItem',
    'dynamodb:UpdateItem',
    'dynamodb:DeleteItem',
    'dynamodb:Query',
    'dynamodb:BatchGetItem',
    'dynamodb:BatchWriteItem',
  ],
  resources: ['table'],
};

/** Sends into the inbox: ingress, drains and redrives. `SendMessageBatch` is `SendMessage`. */
const send: IamStatement = { actions: ['sqs:SendMessage'], resources: ['inbox'] };

/** Receiving from the inbox; `GetQueueAttributes` also reads its identity and redrive policy. */
const receive: IamStatement = {
  actions: [
    'sqs:ReceiveMessage',
    'sqs:DeleteMessage',
    'sqs:ChangeMessageVisibility',
    'sqs:GetQueueAttributes',
  ],
  resources: ['inbox'],
};

/** Reading actors' records (`load`): those queries read, and a timer's actor. */
const readRecords: IamStatement = { actions: ['dynamodb:GetItem'], resources: ['actorRecords'] };

/** Reading outcomes (`readIdempotency`: its item, or its actor's pages) and nothing else of the table. */
const readOutcomes: IamStatement = {
  actions: ['dynamodb:GetItem', 'dynamodb:Query'],
  resources: ['outcomes'],
};

/**
 * Reading a workflow instance's record (`store.load`): its status for `GET /workflows/<name>/<id>`
 * and for the door's refusals (a start of an id run with another input, a signal to an instance
 * that ended), and the callbacks it journaled, which a callback's token must name to pass it.
 */
const readWorkflows: IamStatement = {
  actions: ['dynamodb:GetItem'],
  resources: ['workflowRecords'],
};

/** Binding a keyed message's idempotency key to it when it is sent (`claimKey`): one PutItem. */
const claimKeys: IamStatement = { actions: ['dynamodb:PutItem'], resources: ['claims'] };

/**
 * Claiming keys, and reading a key's claim (`readClaim`): where `GET /outcome`'s lookup of an
 * outcome starts.
 */
const claimAndReadKeys: IamStatement = {
  actions: ['dynamodb:GetItem', 'dynamodb:PutItem'],
  resources: ['claims'],
};

/**
 * The connection registry as the WebSocket and stream handlers use it: connections,
 * subscriptions, query instances with their dependencies, pending requests.
 */
const registry: IamStatement = {
  actions: [
    'dynamodb:GetItem',
    'dynamodb:PutItem',
    'dynamodb:UpdateItem',
    'dynamodb:DeleteItem',
    'dynamodb:Query',
  ],
  resources: ['connections'],
};

/** The stream handler's fan-outs read the connections they push to 100 a call. */
const readConnectionsAtOnce: IamStatement = {
  actions: ['dynamodb:BatchGetItem'],
  resources: ['connections'],
};

/** `PostToConnection` (pushes), `DeleteConnection` (closing a connection). */
const manageConnections: IamStatement = {
  actions: ['execute-api:ManageConnections'],
  resources: ['webSocketApi'],
};

/**
 * Reading the actor table's stream. The Lambda event source mapping calls these with the
 * function's role, not the handler's code: the test cannot record them, and compares the
 * stream handler's other statements only.
 */
const streamEventSource: IamStatement = {
  actions: [
    'dynamodb:DescribeStream',
    'dynamodb:GetRecords',
    'dynamodb:GetShardIterator',
    'dynamodb:ListStreams',
  ],
  resources: ['tableStream'],
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
  /** `workerHandler` (and `Worker.poll`): turns, drains, acks and releases; arms timers. */
  worker: [store, send, receive, { actions: ['sqs:SendMessage'], resources: ['timerQueue'] }],
  /**
   * `sweeperHandler`: finds old outbox items and overdue timers through the index, then drains
   * the outboxes and fires the timers (read whole in a batch); arms the timers that come within
   * the timer queue's reach; counts the dead letters kept in the index.
   */
  sweeper: [
    {
      actions: [
        'dynamodb:GetItem',
        'dynamodb:Query',
        'dynamodb:BatchWriteItem',
        'dynamodb:BatchGetItem',
        'dynamodb:UpdateItem',
      ],
      resources: ['table'],
    },
    { actions: ['dynamodb:Query'], resources: ['outboxIndex'] },
    send,
    { actions: ['sqs:SendMessage'], resources: ['timerQueue'] },
  ],
  /**
   * `relayHandler` (on the timer queue): fires due timers into the inbox, re-arms later ones
   * that are still stored (`GetItem`). Its event source mapping receives and deletes with the
   * function's role: grant `sqs:ReceiveMessage`, `sqs:DeleteMessage` and
   * `sqs:GetQueueAttributes` on `timerQueue` too.
   */
  relay: [readRecords, send, { actions: ['sqs:SendMessage'], resources: ['timerQueue'] }],
  /**
   * `ingressHandler` and `Client`: reads outcomes and workflow instances' records (and no other
   * actor's), claims the keys of keyed messages and reads those claims, sends.
   */
  ingress: [readOutcomes, readWorkflows, claimAndReadKeys, send],
  /**
   * `websocketHandler` (`@baton/aws/websocket`; `$connect`, `$disconnect`, `$default`): the
   * registry; queries' reads and outcomes; `send`/`ask` into the inbox with their keys'
   * claims; pushes, and closing a connection that is not registered. It reads no claim: a
   * keyed send's claim is read back only for a payload over the store's limit (`checkSize`),
   * and a message on API Gateway is one frame of at most 128 KiB, under it.
   */
  websocket: [registry, readRecords, readOutcomes, claimKeys, send, manageConnections],
  /**
   * `streamHandler` (on the table's stream): re-runs the queries a commit touched, pushes their
   * results and answers pending requests; plus what its event source mapping reads.
   */
  stream: [registry, readConnectionsAtOnce, readRecords, manageConnections, streamEventSource],
  /**
   * `connectionSweeper` (scheduled): scans for lapsed leases, closes those connections and
   * removes them with what they held. It writes nothing but deletes.
   */
  connectionSweeper: [
    {
      actions: ['dynamodb:Scan', 'dynamodb:GetItem', 'dynamodb:DeleteItem', 'dynamodb:Query'],
      resources: ['connections'],
    },
    manageConnections,
  ],
} as const satisfies Record<string, readonly IamStatement[]>;
