/**
 * Vitest global setup: starts DynamoDB Local and ElasticMQ once per `vitest run`, hands their
 * endpoints to every test file, and stops them when the run ends (or is interrupted).
 *
 * In a test file:
 *
 * @example
 * import { inject } from 'vitest';
 * const dynamodb = new DynamoDBClient({ endpoint: inject('dynamodbEndpoint') });
 * const sqs = new SQSClient({ endpoint: inject('sqsEndpoint') });
 */

import { startEmulators } from '@baton/cli';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** DynamoDB Local, e.g. `http://127.0.0.1:41234`. */
    dynamodbEndpoint: string;
    /** ElasticMQ (SQS), e.g. `http://127.0.0.1:41235`. */
    sqsEndpoint: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // Local-only credentials: no test can reach a real AWS account with the developer's own.
  process.env.AWS_REGION = 'us-east-1';
  process.env.AWS_ACCESS_KEY_ID = 'local';
  process.env.AWS_SECRET_ACCESS_KEY = 'local';
  delete process.env.AWS_SESSION_TOKEN;
  delete process.env.AWS_PROFILE;

  const emulators = await startEmulators({
    log: (message) => console.log(`[emulators] ${message}`),
  });
  project.provide('dynamodbEndpoint', emulators.dynamodbEndpoint);
  project.provide('sqsEndpoint', emulators.sqsEndpoint);
  return () => emulators.stop();
}
