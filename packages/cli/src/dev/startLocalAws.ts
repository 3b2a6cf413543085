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
 * reloads and crashes. Credentials are local stand-ins, so no real account can be reached; and
 * the emulators check none: whatever can reach loopback reads and writes their data (below).
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
    // The emulators take any request from this machine, without authentication: another user
    // of it, or a page that rebinds a DNS name to 127.0.0.1 (they do not check Host), can list
    // the tables and queues, read every record and message, and send the inbox a message whose
    // body claims a system caller, which the worker trusts. Nothing on loopback stops another
    // local user: use --backend local-aws on a machine of your own only, and the embedded
    // backend (the default, its journal readable by you only) otherwise. Names of this run's
    // own, one for the table and another for the queue, only keep a page that cannot read the
    // answers (ElasticMQ takes SQS's query protocol as a plain GET from any page) from guessing.
    const app = basename(dirname(dirname(entry)))
      .replace(/[^A-Za-z0-9_-]/g, '-')
      .slice(0, 40);
    const fresh = () => `baton-dev-${app}-${randomBytes(8).toString('hex')}`;
    const tableName = fresh();
    const [, queue] = await Promise.all([
      createTable(clients.dynamodb, tableName),
      createFifoQueue(clients.sqs, fresh(), { visibilityTimeoutMs: 5_000 }),
    ]);
    // The AWS SDK's Node.js version notice, if any, was printed above by this process: the app
    // process need not repeat it each time it starts.
    process.env[SDK_NODE_WARNING_OFF] = 'true';
    return {
      config: {
        dynamodbEndpoint,
        sqsEndpoint,
        tableName,
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
