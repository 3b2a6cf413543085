/**
 * A misspelt actor type, on DynamoDB Local and ElasticMQ: `actors get`, `actors list`,
 * `dead-letters list | redrive | purge --type` and `queue-dead-letters redrive --type` refuse, with `--app`, a type the app does not define,
 * offering the nearest type in the words `actors pause` uses, before they read or move anything;
 * without `--app`, what found nothing says how `--app` checks the type, and the redrive names the
 * types of the messages it read and the nearest, rather than say nothing was there.
 */
import { join } from 'node:path';
import { createAwsClients, SqsQueue } from '@baton/aws';
import { type Envelope, encodeEnvelope, INGRESS } from '@baton/core/adapter';
import { beforeEach, describe, expect, it } from 'vitest';
import { faults, Note } from './fixtures/notesApp.ts';
import {
  createOpsDeployment,
  flagsOf,
  hintWith,
  type OpsDeployment,
  pumpUntil,
  runBaton,
} from './fixtures/opsDeployment.ts';

const NOTES = join(import.meta.dirname, 'fixtures', 'notesApp.ts');

describe('a misspelt actor type', () => {
  let deployment: OpsDeployment;

  beforeEach(async () => {
    deployment = await createOpsDeployment('types');
  });

  const baton = (...argv: string[]) =>
    runBaton([...argv, ...flagsOf(deployment.options), '--operator', 'ops']);
  const hint = (command: string) => hintWith(deployment.options, command);

  it('is refused by actors get and actors list with --app, the nearest type offered', async () => {
    const sent = await baton('send', 'note/a', 'add', '{"entry":"x"}', '--app', NOTES);
    expect(sent.code, sent.err).toBe(0);
    await pumpUntil(deployment.queue, deployment.worker([Note]));

    const get = await baton('actors', 'get', 'ntoe/a', '--app', NOTES, '--json');
    expect(get.code).toBe(2);
    expect(get.err).toBe(
      `baton actors get: the app defines no actor type "ntoe" (it has note), and the table holds no record of ntoe/a. Did you mean ${hint('actors get note/a')}?`,
    );
    expect(get.json().error).toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: { type: 'ntoe', knownTypes: ['note'], nearType: 'note' },
    });
    // Without --app, the same id reads as an actor with no record, and says how to check its type.
    const unchecked = await baton('actors', 'get', 'ntoe/a');
    expect(unchecked.code).toBe(1);
    expect(unchecked.err).toMatch(
      /list the type's actors with .*; --app <entry> checks the type against the app's, and names the nearest$/,
    );
    // A type the app defines, of an actor with no record: no record, as before.
    const none = await baton('actors', 'get', 'note/zz', '--app', NOTES);
    expect(none.code).toBe(1);
    expect(none.err).toMatch(/^baton actors get: note\/zz has no record: /);

    const list = await baton('actors', 'list', 'ntoe', '--app', NOTES);
    expect(list.code).toBe(2);
    expect(list.err).toBe(
      `baton actors list: the app defines no actor type "ntoe" (it has note). Did you mean ${hint('actors list note')}? Nothing was read. To list the actors of a type another version of the app defined, leave out --app`,
    );
    expect((await baton('actors', 'list', 'note', '--app', NOTES)).out).toMatch(/\nnote\/a /);
    const empty = await baton('actors', 'list', 'ntoe');
    expect(empty.code, empty.err).toBe(0);
    expect(empty.out).toBe(
      "no actors of type ntoe (an actor type is the name its actor() definition gives; --app <entry> checks the type against the app's, and names the nearest)",
    );
  });

  it('is refused by dead-letters list, redrive and purge --type with --app, and named after the fact without', async () => {
    faults.poisoned = true;
    const sent = await baton('send', 'note/d', 'add', '{"entry":"poison"}', '--app', NOTES);
    expect(sent.code, sent.err).toBe(0);
    await pumpUntil(deployment.queue, deployment.worker([Note]));
    const kept = async () => (await baton('dead-letters', 'list', '--json')).json().deadLetters;
    expect(await kept()).toEqual([expect.objectContaining({ actor: 'note/d' })]);

    const list = await baton('dead-letters', 'list', '--type', 'ntoe', '--app', NOTES);
    expect(list.code).toBe(2);
    expect(list.err).toBe(
      `baton dead-letters list: the app defines no actor type "ntoe" (it has note). Did you mean ${hint('dead-letters list --type note')}? Nothing was read. To list the dead letters of a type another version of the app defined, leave out --app`,
    );
    const listed = await baton('dead-letters', 'list', '--type', 'note', '--app', NOTES);
    expect(listed.code, listed.err).toBe(0);
    expect(listed.out).toMatch(/\nnote\/d /);
    for (const [verb, done] of [
      ['redrive', 'redriven'],
      ['purge', 'purged'],
    ] as const) {
      const refused = await baton('dead-letters', verb, '--all', '--type', 'ntoe', '--app', NOTES);
      expect(refused.code).toBe(2);
      expect(refused.err).toBe(
        `baton dead-letters ${verb}: the app defines no actor type "ntoe" (it has note). Nothing was ${done}. Did you mean ${hint(`dead-letters ${verb} --all --type note`)}? To ${verb} the dead letters of a type another version of the app defined, leave out --app`,
      );
      expect(refused.err).not.toMatch(/baton audit/);
      const dry = await baton(
        ...['dead-letters', verb, '--all', '--type', 'ntoe', '--app', NOTES, '--dry-run'],
      );
      expect(dry.err).toContain(
        `Did you mean ${hint(`dead-letters ${verb} --all --type note --dry-run`)}?`,
      );
    }
    expect(await kept()).toEqual([expect.objectContaining({ actor: 'note/d' })]);

    // Without --app: the empty answer says how --app checks the type; the note, the types kept.
    const unchecked = ` (--type ntoe: an actor type is the name its actor() definition gives; --app <entry> checks the type against the app's, and names the nearest)`;
    const seen = (command: string) =>
      `baton: none of the 1 dead letter(s) kept matches the filters; by code: RETRYABLE 1 (those read are to actors of type note: did you mean ${hint(command)}?)`;
    const empty = await baton('dead-letters', 'list', '--type', 'ntoe');
    expect(empty.code, empty.err).toBe(0);
    expect(empty.out).toBe(`no dead letters${unchecked}`);
    expect(empty.err).toBe(seen('dead-letters list --type note'));
    const none = await baton('dead-letters', 'purge', '--all', '--type', 'ntoe', '--yes');
    expect(none.code, none.err).toBe(0);
    expect(none.out).toBe(`no dead letter matches${unchecked}: nothing to purge`);
    expect(none.err).toBe(seen('dead-letters purge --all --type note'));
    const dry = await baton('dead-letters', 'redrive', '--all', '--type', 'ntoe', '--dry-run');
    expect(dry.out).toBe(`would redrive nothing: no dead letter matches${unchecked}`);
    expect(dry.err).toBe(seen('dead-letters redrive --all --type note --dry-run'));
    // With --app, a type it defines that has no letter says nothing of --app.
    const noLetter = await baton(
      'dead-letters',
      'list',
      '--type',
      'note',
      '--code',
      'X',
      '--app',
      NOTES,
    );
    expect(noLetter.out).toBe('no dead letters');
    expect(await kept()).toEqual([expect.objectContaining({ actor: 'note/d' })]);
  });

  it('is refused by queue-dead-letters redrive --type with --app, and named after the fact without', async () => {
    const envelope: Envelope = {
      id: 'ingress:["note/q","k"]',
      from: INGRESS,
      seq: 0,
      to: 'note/q',
      name: 'add',
      payload: { entry: 'x' },
      sentAt: Date.now(),
    };
    const dlq = new SqsQueue({
      client: createAwsClients({
        dynamodbEndpoint: deployment.options['dynamodb-endpoint']!,
        sqsEndpoint: deployment.options['sqs-endpoint']!,
      }).sqs,
      queueUrl: deployment.options['dead-letter-queue-url']!,
    });
    await dlq.send([{ group: 'note/q', dedupeId: envelope.id, body: encodeEnvelope(envelope) }]);

    const refused = await baton('queue-dead-letters', 'redrive', '--type', 'ntoe', '--app', NOTES);
    expect(refused.code).toBe(2);
    expect(refused.err).toBe(
      `baton queue-dead-letters redrive: the app defines no actor type "ntoe" (it has note). Nothing was moved. Did you mean ${hint('queue-dead-letters redrive --type note')}? To move the messages to actors of a type another version of the app defined, leave out --app`,
    );
    expect(refused.err).not.toMatch(/baton audit/);

    const dry = await baton('queue-dead-letters', 'redrive', '--type', 'ntoe', '--dry-run');
    expect(dry.code, dry.err).toBe(0);
    expect(dry.out).toContain(
      `0 of those shown are to ntoe actors (those read are to actors of type note: did you mean ${hint('queue-dead-letters redrive --type note --dry-run')}?)`,
    );
    const moved = await baton('queue-dead-letters', 'redrive', '--type', 'ntoe', '--yes');
    expect(moved.code, moved.err).toBe(0);
    expect(moved.out.split('\n')[0]).toBe(
      `nothing redriven: the inbox's dead-letter queue gave no message to a ntoe actor (those read are to actors of type note: did you mean ${hint('queue-dead-letters redrive --type note')}?)`,
    );
    // The message stays there, for the redrive of the type meant.
    const listed = await baton('queue-dead-letters', 'list', '--json');
    expect(listed.json().messages).toEqual([expect.objectContaining({ actor: 'note/q' })]);
  });
});
