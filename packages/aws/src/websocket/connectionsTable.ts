/**
 * The connections table of the WebSocket handlers: one DynamoDB table (string keys `pk` + `sk`,
 * TTL on `ttl`) holding the connection registry. Item shapes:
 *
 * | pk               | sk                 | what                                                  |
 * | ---------------- | ------------------ | ----------------------------------------------------- |
 * | `C#<connection>` | `C`                | a connection: identity, lease, end, endpoint, owner   |
 * | `C#<connection>` | `S#<subscription>` | a subscription, by connection (for $disconnect)       |
 * | `U#<owner>`      | `<connection>`     | a user's connection (for `maxConnectionsPerUser`)     |
 * | `Q#<instance>`   | `Q`                | a shared query instance: query, args, version, deps   |
 * | `Q#<instance>`   | `S#<conn>#<sub>`   | a subscriber of the instance                          |
 * | `D#<actor id>`   | `<instance>`       | the instance read that actor (its dependency)         |
 * | `R#<idem. key>`  | `<conn>#<request>` | a pending `ask` or visible `send`                     |
 * | `V#<connection>` | `<idem. key>`      | the connection was shown that message's write         |
 *
 * `<instance>` is the hash of the instance key `[query, canonical args, identity scope]`, so keys
 * stay short whatever the args; `<owner>` is the digest of a user's caller
 * (`connectionOwner`): anonymous connections have none. The ids a client or an app chooses (a
 * subscription's or a request's id, an actor id, a message id) are key parts as they are up to
 * 900 bytes, and their digest past it (`boundedKey`, as in the actor table): every item keeps
 * its ids whole besides, and readers take them from there, so a long id is refused by nothing.
 */
import type { CreateTableCommandInput, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createTableWithTtl } from '../dynamodb/createTableWithTtl.ts';
import { boundedKey } from '../dynamodb/tableLayout.ts';

/** Attribute names of the connections table (each counts against the item size). */
export const RegistryAttr = {
  pk: 'pk',
  sk: 'sk',
  ttl: 'ttl',
  identity: 'identity',
  expiresAt: 'expiresAt',
  validUntil: 'validUntil',
  owner: 'owner',
  at: 'at',
  endpoint: 'endpoint',
  instance: 'instance',
  connectionId: 'connectionId',
  subscriptionId: 'subscriptionId',
  key: 'key',
  query: 'query',
  args: 'args',
  version: 'version',
  hash: 'hash',
  failed: 'failed',
  deps: 'deps',
  rev: 'rev',
  gen: 'gen',
  requestId: 'requestId',
  kind: 'kind',
  actorId: 'actorId',
  name: 'name',
  fingerprint: 'fingerprint',
  frameSecond: 'frameSecond',
  frames: 'frames',
} as const;

/** Sort keys and prefixes of the layout above. */
export const CONNECTION_SK = 'C';
export const INSTANCE_SK = 'Q';
export const SUBSCRIPTION_PREFIX = 'S#';

export const connectionPk = (connectionId: string): string => `C#${connectionId}`;
export const instancePk = (instanceId: string): string => `Q#${instanceId}`;
export const dependencyPk = (actorId: string): string => `D#${boundedKey(actorId)}`;
export const pendingPk = (idempotencyKey: string): string => `R#${boundedKey(idempotencyKey)}`;
export const shownPk = (connectionId: string): string => `V#${connectionId}`;
export const ownerPk = (owner: string): string => `U#${owner}`;
export const subscriptionSk = (subscriptionId: string): string =>
  `${SUBSCRIPTION_PREFIX}${boundedKey(subscriptionId)}`;
export const subscriberSk = (connectionId: string, subscriptionId: string): string =>
  `${SUBSCRIPTION_PREFIX}${boundedKey(`${connectionId}#${subscriptionId}`)}`;
/** What a connection's pending sort keys begin with, however long the request's id. */
export const pendingPrefix = (connectionId: string): string => `${connectionId}#`;
export const pendingSk = (connectionId: string, requestId: string): string =>
  `${pendingPrefix(connectionId)}${boundedKey(requestId)}`;
export const shownSk = (idempotencyKey: string): string => boundedKey(idempotencyKey);

/**
 * The connections table: on-demand, string keys `pk` + `sk`, no index and no stream. Enable TTL
 * on `ttl` too ({@link createConnectionsTable} does both); TTL collects what a crashed handler
 * left behind.
 *
 * @example
 * await dynamodb.send(new CreateTableCommand(connectionsTableDefinition('baton-connections')));
 */
export function connectionsTableDefinition(
  tableName: string,
): CreateTableCommandInput & { readonly TableName: string } {
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [
      { AttributeName: RegistryAttr.pk, AttributeType: 'S' },
      { AttributeName: RegistryAttr.sk, AttributeType: 'S' },
    ],
    KeySchema: [
      { AttributeName: RegistryAttr.pk, KeyType: 'HASH' },
      { AttributeName: RegistryAttr.sk, KeyType: 'RANGE' },
    ],
  };
}

/**
 * Creates the connections table ({@link connectionsTableDefinition}), waits until it is active
 * and enables TTL on `ttl`. Safe to call again. For production prefer infrastructure as code.
 *
 * @example
 * await createConnectionsTable(dynamodb, 'baton-connections');
 */
export async function createConnectionsTable(
  client: DynamoDBClient,
  tableName: string,
): Promise<void> {
  await createTableWithTtl(client, connectionsTableDefinition(tableName), RegistryAttr.ttl);
}
