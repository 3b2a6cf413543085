/**
 * A bulk action that fails partway, on DynamoDB Local and ElasticMQ: `dead-letters redrive --all`
 * stops at a letter it must refuse (its actor reads its inbox from another queue) after
 * redriving one before it. It exits 1, not 2; its error says what it redrove, where it stopped and
 * why, and what it did not reach, in `--json` too; and what it redrove is applied once.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { createAwsClients, createFifoQueue, SqsQueue } from '@baton/aws';
import { workerHandler } from '@baton/aws/lambda';
import { LocalSqsEventSource } from '@baton/aws/local';
import { silentLogger } from '@baton/core';
import { shellQuote } from '@baton/core/engine';
import { expect, inject, it } from 'vitest';
import {
  batonJson,
  createOpsDeployment,
  flagsOf,
  pumpUntil,
  runBaton,
} from './fixtures/opsDeployment.ts';
import { faults, Tally } from './fixtures/tallyApp.ts';

const TALLY = join(import.meta.dirname, 'fixtures', 'tallyApp.ts');
/** `text` as a regular expression matching it alone. */
const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

it('stops a bulk redrive at a letter it refuses, saying what it redrove and what it did not reach, and exits 1', async () => {
  const deployment = await createOpsDeployment('partway');
  const source = deployment.worker([Tally]);
  faults.poisoned = true;
  const entriesOf = async (id: string) =>
    ((await deployment.store.load(id))?.state as { entries: string[] } | undefined)?.entries ?? [];
  const letters = async () =>
    (await batonJson(deployment, ['dead-letters', 'list'])).deadLetters as {
      actor: string;
      messageId: string;
    }[];
  for (const [i, id] of ['tally/a', 'tally/b', 'tally/c'].entries()) {
    await batonJson(deployment, ['send', id, 'add', '{"entry":"poison"}', '--app', TALLY]);
    await pumpUntil(deployment.queue, source, async () => (await letters()).length === i + 1);
  }
  // tally/b's next turn reads its inbox from another queue (another deployment's worker on the
  // same table, say): a redrive through this inbox would never reach it, and is refused.
  const { sqs } = createAwsClients({ sqsEndpoint: inject('sqsEndpoint') });
  const other = await createFifoQueue(sqs, `partway-other-${randomUUID().slice(0, 8)}`);
  const otherQueue = new SqsQueue({ client: sqs, queueUrl: other.queueUrl });
  const otherSource = new LocalSqsEventSource({
    client: sqs,
    queueUrl: other.queueUrl,
    handler: workerHandler({
      actors: [Tally],
      store: deployment.store,
      queue: otherQueue,
      logger: silentLogger,
    }),
    waitSeconds: 0,
  });
  const elsewhere = { ...deployment.options, 'queue-url': other.queueUrl };
  expect(
    (
      await runBaton([
        'send',
        'tally/b',
        'add',
        '{"entry":"ok"}',
        '--app',
        TALLY,
        ...flagsOf(elsewhere),
        '--queue-replaced',
      ])
    ).code,
  ).toBe(0);
  await pumpUntil(otherQueue, otherSource, async () => (await entriesOf('tally/b')).length === 1);

  faults.poisoned = false;
  const listed = await letters();
  /** A letter as `details.partway` gives it, and as the message names it (its id quoted). */
  const letter = (actor: string) => {
    const { messageId } = listed.find((l) => l.actor === actor)!;
    return { actor, messageId };
  };
  const named = (actor: string) => `${actor} ${shellQuote(letter(actor).messageId)}`;
  const pattern = (actor: string) => literal(named(actor));
  expect(listed.map((l) => l.actor)).toEqual(['tally/a', 'tally/b', 'tally/c']);
  const redriveAll = () =>
    runBaton([
      'dead-letters',
      'redrive',
      '--all',
      '--yes',
      '--json',
      ...flagsOf(deployment.options),
      '--operator',
      'ops',
    ]);
  const run = await redriveAll();
  expect(run.code, run.err).toBe(1);
  const { error } = run.json();
  expect(error.code).toBe('INVALID_ARGUMENT');
  expect(error.details.partway).toEqual({
    done: [letter('tally/a')],
    at: letter('tally/b'),
    notReached: [letter('tally/c')],
  });
  expect(error.message).toMatch(
    new RegExp(
      `^redrove 1 of the 3 dead letters \\(${pattern('tally/a')}\\), then stopped at ${pattern('tally/b')}: tally/b reads its inbox from another queue .*Nothing was sent to tally/b\\. Not reached: ${pattern('tally/c')}\\. Once that is fixed, run it again: a letter it redrove is sent again, and still applied once$`,
    ),
  );
  expect(run.err.match(/"action":"dead-letters redrive"/g)).toHaveLength(1);

  // What it redrove is applied, once; what it did not reach is still a dead letter.
  await pumpUntil(deployment.queue, source, async () => (await entriesOf('tally/a')).length === 1);
  expect(await entriesOf('tally/a')).toEqual(['poison']);
  expect(await entriesOf('tally/c')).toEqual([]);
  expect((await letters()).map((l) => l.actor)).toEqual(['tally/b', 'tally/c']);
  // Run again, it meets tally/b first: having done nothing, it says tally/b's refusal alone, a
  // usage error (2).
  const again = await redriveAll();
  expect(again.code).toBe(2);
  expect(again.json().error.details.partway).toBeUndefined();
  expect(again.json().error.message).toMatch(/^tally\/b reads its inbox from another queue /);
});
