/**
 * `baton send` and `baton ask` refused by the app given with `--app` (an actor type it lacks, a
 * handler its actor lacks, a payload its schema refuses), on DynamoDB Local and ElasticMQ: the
 * message is never sent, and no audit line records it, as the audit log keeps what was sent.
 */
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  createOpsDeployment,
  flagsOf,
  type OpsDeployment,
  runBaton,
} from './fixtures/opsDeployment.ts';

const APP = join(import.meta.dirname, 'fixtures', 'tallyApp.ts');

describe('a send or an ask the app refuses', () => {
  let deployment: OpsDeployment;

  beforeEach(async () => {
    deployment = await createOpsDeployment('refused');
  });

  const baton = (...argv: string[]) =>
    runBaton([...argv, ...flagsOf(deployment.options), '--operator', 'ops']);

  it('is not sent, and writes no audit line', async () => {
    const refusals = [
      { to: 'tally/a', name: 'subtract', payload: '{"entry":"x"}', code: 'UNKNOWN_MESSAGE' },
      { to: 'ledger/a', name: 'add', payload: '{"entry":"x"}', code: 'UNKNOWN_ACTOR' },
      { to: 'tally/a', name: 'add', payload: '{"entry":5}', code: 'INVALID_PAYLOAD' },
    ];
    for (const command of ['send', 'ask']) {
      for (const { to, name, payload, code } of refusals) {
        const refused = await baton(command, to, name, payload, '--app', APP, '--json');
        const what = `${command} ${to} ${name} ${payload}`;
        expect(refused.code, what).toBe(1);
        expect(refused.json().error.code, what).toBe(code);
        expect(refused.err, what).not.toContain('baton audit');
      }
    }
    expect(await deployment.queue.approximateCounts()).toMatchObject({ visible: 0, inFlight: 0 });
    // A message the app takes is audited, as before.
    const sent = await baton('send', 'tally/a', 'add', '{"entry":"x"}', '--app', APP);
    expect(sent.code, sent.err).toBe(0);
    expect(sent.err).toMatch(/^baton audit \{.*"action":"send","actor":"tally\/a","name":"add"/);
  });
});
