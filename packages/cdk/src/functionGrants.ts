/**
 * The IAM statements `@baton/aws` declares each function needs (`BATON_IAM`), on this app's
 * resources, and the conditions that narrow the table to its idempotency records, its key claims,
 * its actors' partitions or its workflow instances' records.
 */
import {
  ACTOR_RECORD_LEADING_KEYS,
  BATON_IAM,
  CLAIM_LEADING_KEYS,
  type IamResource,
  OUTBOX_INDEX,
  OUTCOME_LEADING_KEYS,
  WORKFLOW_RECORD_LEADING_KEYS,
} from '@baton/aws';
import { Stack } from 'aws-cdk-lib';
import type * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { BatonFunctionName } from './appFunctions.ts';

/** The condition that narrows the table to its idempotency records (`outcomes`). */
export const OUTCOMES_ONLY = {
  'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [OUTCOME_LEADING_KEYS] },
};

/** The condition that narrows the table to its key claims (`claims`). */
export const CLAIMS_ONLY = {
  'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [CLAIM_LEADING_KEYS] },
};

/** The condition that narrows the table to actors' partitions (`actorRecords`). */
export const ACTOR_RECORDS_ONLY = {
  'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [ACTOR_RECORD_LEADING_KEYS] },
};

/** The condition that narrows the table to workflow instances' records (`workflowRecords`). */
export const WORKFLOW_RECORDS_ONLY = {
  'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [WORKFLOW_RECORD_LEADING_KEYS] },
};

/** The app's resources that `BATON_IAM` names. */
export interface IamResources extends Construct {
  readonly table: dynamodb.Table;
  readonly inbox: sqs.Queue;
  readonly timerQueue: sqs.Queue;
  readonly connectionsTable: dynamodb.Table;
  readonly webSocketApi: apigwv2.WebSocketApi;
  readonly webSocketStage: apigwv2.WebSocketStage;
}

/** The IAM statements `BATON_IAM` declares for `part`, on `app`'s resources. */
export function statementsFor(app: IamResources, part: BatonFunctionName): iam.PolicyStatement[] {
  return BATON_IAM[part].map(({ actions, resources }) => {
    // `outcomes`, `claims`, `actorRecords` and `workflowRecords` are the table on a condition,
    // each a statement of its own.
    const named = resources as readonly IamResource[];
    const conditions = named.includes('outcomes')
      ? OUTCOMES_ONLY
      : named.includes('claims')
        ? CLAIMS_ONLY
        : named.includes('actorRecords')
          ? ACTOR_RECORDS_ONLY
          : named.includes('workflowRecords')
            ? WORKFLOW_RECORDS_ONLY
            : undefined;
    return new iam.PolicyStatement({
      actions: [...actions],
      resources: resources.flatMap((resource) => arnsOf(app, resource)),
      conditions,
    });
  });
}

/** Grants `grantee` what `BATON_IAM` declares for `part`, on `app`'s resources. */
export function grantPart(
  app: IamResources,
  part: BatonFunctionName,
  grantee: iam.IGrantable,
): iam.Grant {
  return statementsFor(app, part)
    .map((statement) =>
      iam.Grant.addToPrincipal({
        grantee,
        actions: statement.actions,
        resourceArns: statement.resources,
        conditions: statement.conditions,
      }),
    )
    .reduce((all, grant) => all.combine(grant));
}

function arnsOf(app: IamResources, resource: IamResource): string[] {
  switch (resource) {
    case 'table':
    case 'outcomes':
    case 'claims':
    case 'actorRecords':
    case 'workflowRecords':
      return [app.table.tableArn];
    case 'outboxIndex':
      return [`${app.table.tableArn}/index/${OUTBOX_INDEX}`];
    case 'inbox':
      return [app.inbox.queueArn];
    case 'timerQueue':
      return [app.timerQueue.queueArn];
    case 'connections':
      return [app.connectionsTable.tableArn];
    case 'tableStream':
      return [app.table.tableStreamArn!];
    case 'webSocketApi':
      return [
        Stack.of(app).formatArn({
          service: 'execute-api',
          resource: app.webSocketApi.apiId,
          resourceName: `${app.webSocketStage.stageName}/*/@connections/*`,
        }),
      ];
  }
}
