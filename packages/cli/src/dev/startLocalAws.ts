import { randomBytes } from 'node:crypto';
import { basename, dirname } from 'node:path';
import { createAwsClients, createFifoQueue, createTable } from '@baton/aws';
import { BatonError } from '@baton/core';
import { isEmulatorError } from '../emulators/EmulatorError.ts';
import { startEmulators } from '../emulators/startEmulators.ts';
import { SDK_NODE_WARNING_OFF } from '../sdkNodeWarning.ts';
import type { ChildConfig } from './protocol.ts';

/**
 * Starts DynamoDB Local and ElasticMQ for `--backend local-aws`, with the app's table and
 * inbox. The emulators keep their data in memory: it lasts until `baton dev` stops, across app
 * reloads and crashes. Credentials are local stand-ins, so no real account can be reached.
 */
export async function startLocalAws(
  entry: string,
  log: (line: string) => void,
): Promise<{ config: NonNullable<ChildConfig['aws']>; stop(): Promise<void> }> {
  log('starting DynamoDB Local and ElasticMQ (the first run downloads them with Maven)…');
  const emulators = await startEmulators({ log }).catch((error: unknown) => {
    if (!isEmulatorError(error)) throw error;
    throw new BatonError(
      error.code,
      `${error.message}\nOr run baton dev without --backend local-aws: the embedded backend needs neither.`,
      { cause: error },
    );
  });
  try {
    // Inherited by the app process: the SDK's clients need a region and credentials.
    Object.assign(process.env, {
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
    });
    delete process.env.AWS_SESSION_TOKEN;
    delete process.env.AWS_PROFILE;
    const { dynamodbEndpoint, sqsEndpoint } = emulators;
    const clients = createAwsClients({ dynamodbEndpoint, sqsEndpoint });
    // A name of this run's own: ElasticMQ takes SQS's query protocol as a plain GET from any
    // page, without credentials, so a page elsewhere that found its port could send into a queue
    // whose name it can guess. It cannot read the answers (no CORS), so it cannot list them.
    const app = basename(dirname(dirname(entry)))
      .replace(/[^A-Za-z0-9_-]/g, '-')
      .slice(0, 40);
    const name = `baton-dev-${app}-${randomBytes(8).toString('hex')}`;
    const [, queue] = await Promise.all([
      createTable(clients.dynamodb, name),
      createFifoQueue(clients.sqs, name, { visibilityTimeoutMs: 5_000 }),
    ]);
    // The AWS SDK's Node.js version notice, if any, was printed above by this process: the app
    // process need not repeat it each time it starts.
    process.env[SDK_NODE_WARNING_OFF] = 'true';
    return {
      config: {
        dynamodbEndpoint,
        sqsEndpoint,
        tableName: name,
        queueUrl: queue.queueUrl,
        deadLetterQueueUrl: queue.deadLetterQueueUrl,
      },
      stop: () => emulators.stop(),
    };
  } catch (error) {
    await emulators.stop();
    throw error;
  }
}
