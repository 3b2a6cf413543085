/**
 * Message ids as an operator copies them, on DynamoDB Local and ElasticMQ: a client message's id
 * is JSON (`ingress:["tally/x","…","…"]`), so `send`, `dead-letters list` and a bulk
 * redrive's preview print it as a shell word, and a row pasted into the next command names the
 * same message; an id pasted bare, its quotes stripped by the shell, is refused as such by
 * `outcome` (not told "not processed yet") and by `dead-letters show`.
 */
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  createOpsDeployment,
  flagsOf,
  type OpsDeployment,
  pumpUntil,
  runBaton,
  shellWords,
} from './fixtures/opsDeployment.ts';
import { faults, Tally } from './fixtures/tallyApp.ts';

const APP = join(import.meta.dirname, 'fixtures', 'tallyApp.ts');

describe('message ids pasted from one baton command into the next', () => {
  let deployment: OpsDeployment;

  beforeEach(async () => {
    deployment = await createOpsDeployment('pasted');
    faults.poisoned = true;
  });

  const baton = (...argv: string[]) =>
    runBaton([...argv, ...flagsOf(deployment.options), '--operator', 'ops', '--yes']);
  /** `baton <line>` as a shell gives it the words of `line`, pasted from baton's output. */
  const pasted = (line: string) => baton(...shellWords(line));

  it('prints a client message’s id as a shell word, and refuses one whose quotes a shell stripped', async () => {
    const sent = await baton('send', 'tally/x', 'add', '{"entry":"poison"}', '--app', APP);
    expect(sent.code, sent.err).toBe(0);
    const printed = /^message id (.+)$/m.exec(sent.out)![1]!;
    const [id] = shellWords(printed);
    expect(id).toMatch(/^ingress:\["tally\/x",/);
    await pumpUntil(
      deployment.queue,
      deployment.worker([Tally]),
      async () => (await baton('dead-letters', 'list', '--json')).json().total === 1,
    );

    // A row of the list, its actor and message id pasted: the letter they name.
    const row = (await baton('dead-letters', 'list')).out.split('\n')[1]!;
    const [actor, , , , , rowId] = shellWords(row);
    expect([actor, rowId]).toEqual(['tally/x', id]);
    const columns = row.split(/ {2,}/);
    const show = await pasted(`dead-letters show ${columns[0]} ${columns[5]}`);
    expect(show.code, show.err).toBe(0);
    expect(show.out).toContain(`message    ${id}\n`);
    const preview = (await baton('dead-letters', 'redrive', '--all', '--dry-run')).out;
    expect(shellWords(preview.split('\n').at(-1)!)).toEqual(['tally/x', id]);

    // Pasted bare, as printed before: the shell strips the quotes, and baton says so.
    const bare = id!.replaceAll('"', '');
    const outcome = await pasted(`outcome ${id!}`);
    expect(outcome.code).toBe(2);
    expect(outcome.err).toBe(
      `baton outcome: the message id ${bare} lost its quotes (a shell strips them): put the id in single quotes, as baton prints it, e.g. ${printed}`,
    );
    expect(outcome.err).not.toMatch(/not processed yet/);
    expect((await pasted(`dead-letters show tally/x ${id!}`)).err).toContain(
      `lost its quotes (a shell strips them): put the id in single quotes, as baton prints it, e.g. ${printed}`,
    );
  });
});
