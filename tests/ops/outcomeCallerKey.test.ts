/**
 * `baton outcome <type/key> <key>` of a key a client sent, on DynamoDB Local and ElasticMQ: a key
 * names a message per caller, so read in the CLI's own scope the client's processed message has
 * no outcome. The answer says that first, with the command that reads it in the client's scope
 * (`--caller`), rather than lead with "not processed yet"; `--caller` reads it, and only with
 * the caller that sent it.
 */
import { Client } from '@baton/core/client';
import { beforeEach, describe, expect, it } from 'vitest';
import { Note } from './fixtures/notesApp.ts';
import {
  createOpsDeployment,
  flagsOf,
  hintWith,
  type OpsDeployment,
  pumpUntil,
  runBaton,
} from './fixtures/opsDeployment.ts';

describe('baton outcome of a key a client sent', () => {
  let deployment: OpsDeployment;

  beforeEach(async () => {
    deployment = await createOpsDeployment('caller');
  });

  const baton = (...argv: string[]) =>
    runBaton([...argv, ...flagsOf(deployment.options), '--operator', 'ops']);
  const hint = (command: string) => hintWith(deployment.options, command);

  it('says first that keys are per caller, and reads the client’s with --caller', async () => {
    const { store, queue } = deployment;
    const client = new Client({ actors: [Note], store, queue });
    const alice = { kind: 'user', identity: { userId: 'alice' } } as const;
    await client.send(
      Note.ref('c'),
      'add',
      { entry: 'x' },
      { idempotencyKey: 'k-1', caller: alice },
    );
    await client.send(Note.ref('c'), 'add', { entry: 'y' }, { idempotencyKey: 'k-2' });
    await pumpUntil(queue, deployment.worker([Note]));

    const cli = await baton('outcome', 'note/c', 'k-1');
    expect(cli.code).toBe(1);
    const error = cli.err.split('\n')[0]!;
    expect(error).toMatch(
      /^baton outcome: no outcome of ingress:\S+ under the CLI's own caller scope\. A key names a message per caller: by key, this reads only a message the CLI sent \(baton send, baton ask\), and a key a client sent names another message — give that client's caller, /,
    );
    expect(error).toContain(`${hint('outcome note/c k-1 --caller <caller>')} (<caller>: anonymous`);
    // The per-caller explanation comes before what a message the CLI sent may be waiting on.
    expect(error.indexOf('per caller')).toBeLessThan(error.indexOf('not processed yet'));
    expect(error).toContain('. Sent by the CLI: it is not processed yet');

    const read = await baton('outcome', 'note/c', 'k-1', '--caller', 'user:{"userId":"alice"}');
    expect(read.code, read.err).toBe(0);
    expect(read.out).toBe('ok null');
    const anonymous = await baton('outcome', 'note/c', 'k-2', '--caller', 'anonymous');
    expect(anonymous.code, anonymous.err).toBe(0);
    expect(anonymous.out).toBe('ok null');

    // Another caller's scope names another message: not alice's outcome.
    const bob = await baton('outcome', 'note/c', 'k-1', '--caller', 'user:{"userId":"bob"}');
    expect(bob.code).toBe(1);
    expect(bob.err).toMatch(
      /^baton outcome: no outcome of ingress:\S+ \(the key as the caller --caller names sent it\): it is not processed yet .*, or another caller than --caller names sent it \(a key names a message per caller\)$/,
    );

    const badJson = await baton('outcome', 'note/c', 'k-1', '--caller', 'user:{userId}');
    expect(badJson.code).toBe(2);
    expect(badJson.err).toMatch(/^baton outcome: --caller user: takes the identity as JSON/);
    const unknown = await baton('outcome', 'note/c', 'k-1', '--caller', 'alice');
    expect(unknown.code).toBe(2);
    expect(unknown.err).toMatch(/^baton outcome: --caller takes anonymous .*, not "alice"$/);
    const byId = await baton('outcome', 'ingress:["note/c","k-2"]', '--caller', 'anonymous');
    expect(byId.code).toBe(2);
    expect(byId.err).toMatch(/^baton outcome: --caller goes with <type\/key> <idempotency key>/);
  });
});
