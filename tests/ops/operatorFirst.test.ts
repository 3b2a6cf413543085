/**
 * An action's operator is known before the action: when STS cannot say who acts (expired
 * credentials, say), the command changes nothing, rather than act and leave no audit line.
 * On DynamoDB Local and ElasticMQ, reached as AWS is (no endpoint flags), with STS unreachable.
 */
import { createAwsClients, SqsQueue } from '@baton/aws';
import { encodeEnvelope, INGRESS } from '@baton/core/adapter';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createOpsDeployment, type OpsDeployment, runBaton } from './fixtures/opsDeployment.ts';

/** The variables this test sets, to put back after it. */
const SET = [
  'AWS_ENDPOINT_URL_DYNAMODB',
  'AWS_ENDPOINT_URL_SQS',
  'AWS_ENDPOINT_URL_STS',
  'AWS_REGION',
] as const;

describe("an operator's action on AWS", () => {
  let deployment: OpsDeployment;
  const saved = new Map<string, string | undefined>();

  beforeEach(async () => {
    deployment = await createOpsDeployment('operator');
    for (const name of SET) saved.set(name, process.env[name]);
    // The emulators stand in for AWS; STS answers nothing (a port nobody listens on).
    process.env.AWS_ENDPOINT_URL_DYNAMODB = deployment.options['dynamodb-endpoint'];
    process.env.AWS_ENDPOINT_URL_SQS = deployment.options['sqs-endpoint'];
    process.env.AWS_ENDPOINT_URL_STS = 'http://127.0.0.1:9';
    process.env.AWS_REGION = 'us-east-1';
  });

  afterEach(() => {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  /** The app's table and queues, named as on AWS: no endpoint flags. */
  const target = () =>
    (['table', 'queue-url', 'dead-letter-queue-url'] as const).flatMap((name) => [
      `--${name}`,
      deployment.options[name]!,
    ]);

  it('moves nothing when STS cannot say who acts, and says what to do', async () => {
    const deadLetters = new SqsQueue({
      client: createAwsClients({
        dynamodbEndpoint: deployment.options['dynamodb-endpoint']!,
        sqsEndpoint: deployment.options['sqs-endpoint']!,
      }).sqs,
      queueUrl: deployment.options['dead-letter-queue-url']!,
    });
    const envelope = {
      id: 'ingress:["tally/q","m0"]',
      from: INGRESS,
      seq: 0,
      to: 'tally/q',
      name: 'add',
      payload: { entry: 'm0' },
      sentAt: Date.now(),
    };
    await deadLetters.send([
      { group: 'tally/q', dedupeId: envelope.id, body: encodeEnvelope(envelope) },
    ]);

    const run = await runBaton(['queue-dead-letters', 'redrive', '--yes', ...target()]);
    expect(run.code, run.err).toBe(1);
    expect(run.err).toContain('could not tell who acts, for the audit line (STS GetCallerIdentity');
    expect(run.err).toContain(
      'nothing was changed; renew your AWS credentials, or pass --operator',
    );
    expect(run.err).not.toContain('baton audit');
    expect((await deployment.queue.approximateCounts()).visible).toBe(0);
    expect((await deadLetters.approximateCounts()).visible).toBe(1);
    // Told who acts, the same command moves it, and audits that.
    const named = await runBaton([
      'queue-dead-letters',
      'redrive',
      '--yes',
      '--operator',
      'drill',
      ...target(),
    ]);
    expect(named.code, named.err).toBe(0);
    expect(named.err).toMatch(
      /baton audit .*"by":"drill","action":"queue-dead-letters redrive","moved":1/,
    );
    expect((await deployment.queue.approximateCounts()).visible).toBe(1);
  });
});
