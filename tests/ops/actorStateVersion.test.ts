/**
 * `baton actors get --app` on a record whose state version differs from the app's, on DynamoDB
 * Local and ElasticMQ: one a migration the app makes gives a valid state (migrated on its next
 * turn); one written by a newer version than the app's — after a rollback — is never migrated
 * (its messages wait, then are dead-lettered: roll forward, then redrive); one the app's migration
 * throws on is never migrated either, and the migration's error is told, from a dry run of it.
 */
import { join } from 'node:path';
import type { LocalSqsEventSource } from '@baton/aws/local';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  createOpsDeployment,
  flagsOf,
  type OpsDeployment,
  pumpUntil,
  runBaton,
} from './fixtures/opsDeployment.ts';
import { TallyV1, TallyV2 } from './fixtures/versionedTally.ts';

const V1 = join(import.meta.dirname, 'fixtures', 'tallyV1App.ts');
const V2 = join(import.meta.dirname, 'fixtures', 'tallyV2App.ts');

describe('baton actors get --app on a state of another version than the app’s', () => {
  let deployment: OpsDeployment;

  beforeEach(async () => {
    deployment = await createOpsDeployment('stateversion');
  });

  const baton = (...argv: string[]) =>
    runBaton([...argv, ...flagsOf(deployment.options), '--operator', 'ops']);
  const deadLetters = async () => (await baton('dead-letters', 'list', '--json')).json().total;
  /** Sends `entry` to tally/t with the app `entry` and lets `worker` run until `done()`. */
  async function add(
    worker: LocalSqsEventSource,
    app: string,
    entry: string,
    done?: () => Promise<boolean>,
  ) {
    expect(
      (await baton('send', 'tally/t', 'add', JSON.stringify({ entry }), '--app', app)).code,
    ).toBe(0);
    await pumpUntil(deployment.queue, worker, done);
  }
  const stateValid = async (app: string) => {
    const got = await baton('actors', 'get', 'tally/t', '--app', app, '--json');
    expect(got.code, got.err).toBe(0);
    return got.json().stateValid as true | string;
  };

  it('says a state the app migrates is migrated on its next turn', async () => {
    await add(deployment.worker([TallyV1]), V1, 'a');
    expect(await stateValid(V1)).toBe(true);
    expect(await stateValid(V2)).toBe(
      'written by version 1 of tally; the app has 2: migrated on its next turn (its migration, run here on a copy, gives a valid state)',
    );
  }, 120_000);

  it('after a rollback, says the older code never migrates a newer state, and what to do', async () => {
    await add(deployment.worker([TallyV2]), V2, 'a');
    // Rolled back to version 1: the next message waits, then is dead-lettered.
    await add(deployment.worker([TallyV1]), V1, 'b', async () => (await deadLetters()) === 1);

    const valid = await stateValid(V1);
    expect(valid).toMatch(
      /^written by version 2 of tally; the app has 1, older: its code never migrates a state back, so every message to tally\/t waits, then becomes a dead letter, until code of version 2 runs again/,
    );
    expect(valid).toContain('docs/operations.md, "Rolling back a deploy"');
    expect(valid).not.toMatch(/migrated on/);
  }, 120_000);

  it('says a migration that throws on this state never migrates it, with the migration’s error', async () => {
    await add(deployment.worker([TallyV1]), V1, 'legacy');
    await add(deployment.worker([TallyV2]), V2, 'b', async () => (await deadLetters()) === 1);

    const valid = await stateValid(V2);
    expect(valid).toBe(
      'written by version 1 of tally; the app has 2, and its migrate step from version 1 throws on this state (migration 1→2 cannot read "legacy"): every message to tally/t waits, then becomes a dead letter — fix the migration, deploy, then redrive them',
    );
    // Run on a copy: the record is as it was.
    const got = (await baton('actors', 'get', 'tally/t', '--json')).json();
    expect(got).toMatchObject({ stateVersion: 1, state: { entries: ['legacy'] } });
  }, 120_000);
});
