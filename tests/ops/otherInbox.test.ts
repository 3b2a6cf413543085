/**
 * A command that sends to an actor's inbox, pointed at a queue the actor does not read from
 * (`--queue-url` naming another deployment's inbox, on DynamoDB Local and ElasticMQ), is
 * refused before it sends anything: the message would never reach the actor, and a redrive
 * would leave its letter listed for good while saying it was redriven.
 */
import { join } from 'node:path';
import { createAwsClients, createFifoQueue, SqsQueue } from '@baton/aws';
import { expect, inject, it } from 'vitest';
import { createOpsDeployment, flagsOf, pumpUntil, runBaton } from './fixtures/opsDeployment.ts';
import { runs, Tally } from './fixtures/tallyApp.ts';

const TALLY = join(import.meta.dirname, 'fixtures', 'tallyApp.ts');

it('refuses to send to an actor through a queue it does not read its inbox from, unless told the inbox was replaced', async () => {
  const deployment = await createOpsDeployment('other-inbox');
  const source = deployment.worker([Tally]);
  runs.clear();
  const baton = (options: Record<string, string>, ...argv: string[]) =>
    runBaton([...argv, ...flagsOf(options), '--operator', 'ops']);
  const add = ['send', 'tally/o', 'add', JSON.stringify({ entry: 'a' }), '--app', TALLY];
  expect((await baton(deployment.options, ...add)).code).toBe(0);
  await pumpUntil(deployment.queue, source);

  const { sqs } = createAwsClients({ sqsEndpoint: inject('sqsEndpoint') });
  const other = await createFifoQueue(sqs, `other-inbox-${Date.now()}`);
  const elsewhere = { ...deployment.options, 'queue-url': other.queueUrl };
  for (const argv of [add, ['actors', 'pause', 'tally/o', '--yes']]) {
    const refused = await baton(elsewhere, ...argv);
    expect(refused.code, refused.err).toBe(2);
    expect(refused.err).toContain(
      `tally/o reads its inbox from another queue than ${other.queueUrl}: check --queue-url`,
    );
    expect(refused.err).toContain('pass --queue-replaced. Nothing was sent to tally/o');
  }
  const otherQueue = new SqsQueue({ client: sqs, queueUrl: other.queueUrl });
  expect(await otherQueue.receive({ max: 10, visibilityTimeoutMs: 1_000 })).toEqual([]);
  expect(
    (await baton(deployment.options, 'actors', 'get', 'tally/o', '--json')).json(),
  ).toMatchObject({
    paused: null,
  });

  // An actor never seen has no queue to hold to; a replaced inbox is said so.
  const unseen = await baton(
    elsewhere,
    'send',
    'tally/new',
    'add',
    '{"entry":"b"}',
    '--app',
    TALLY,
  );
  expect(unseen.code, unseen.err).toBe(0);
  const replaced = await baton(elsewhere, ...add, '--queue-replaced');
  expect(replaced.code, replaced.err).toBe(0);
  expect(await otherQueue.receive({ max: 10, visibilityTimeoutMs: 1_000 })).toHaveLength(2);
});
