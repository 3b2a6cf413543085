/**
 * The app's DynamoDB tables, in the layouts the store and the registry read and write (from
 * `@baton/aws`): the actor table, and the live queries' connections table.
 */
import { connectionsTableDefinition, TTL_ATTRIBUTE, tableDefinition } from '@baton/aws';
import { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import { tableSchema } from './tableSchema.ts';

export interface AppTables {
  readonly table: dynamodb.Table;
  readonly connectionsTable: dynamodb.Table;
}

/**
 * The actor table (kept on removal unless `removalPolicy` says otherwise, with Contributor
 * Insights on its keys when `contributorInsights`) and the connections'.
 */
export function createTables(
  scope: Construct,
  removalPolicy: RemovalPolicy | undefined,
  contributorInsights: boolean,
): AppTables {
  const actors = tableSchema(tableDefinition('actors'));
  const table = new dynamodb.Table(scope, 'Table', {
    partitionKey: actors.partitionKey,
    ...(actors.sortKey ? { sortKey: actors.sortKey } : {}),
    billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
    stream: dynamodb.StreamViewType.NEW_IMAGE,
    timeToLiveAttribute: TTL_ATTRIBUTE,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    removalPolicy: removalPolicy ?? RemovalPolicy.RETAIN,
    // Off, the property is left out: the default template stays as it was.
    ...(contributorInsights ? { contributorInsightsSpecification: { enabled: true } } : {}),
  });
  for (const index of actors.indexes) table.addGlobalSecondaryIndex(index);
  const connections = tableSchema(connectionsTableDefinition('connections'));
  const connectionsTable = new dynamodb.Table(scope, 'Connections', {
    partitionKey: connections.partitionKey,
    ...(connections.sortKey ? { sortKey: connections.sortKey } : {}),
    billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
    timeToLiveAttribute: TTL_ATTRIBUTE,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    // Soft state: leases and subscriptions that clients re-create on reconnect.
    removalPolicy: RemovalPolicy.DESTROY,
  });
  return { table, connectionsTable };
}
