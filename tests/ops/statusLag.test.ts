/**
 * `baton status` on DynamoDB Local and ElasticMQ, read as if later than now (its clock is the
 * CLI's `now`): a timer past due that nothing fired counts as due and makes the app unhealthy
 * ("timers fire late"), and an actor whose committed sends the sweeper has not retired counts
 * as sweeper lag; at the real time, neither is a problem yet.
 */
import { join } from 'node:path';
import { runOps } from '@baton/cli/ops';
import { beforeEach, describe, expect, it } from 'vitest';
import { readActor } from '../../packages/cli/src/ops/inspect/inspectData.ts';
import type { Target } from '../../packages/cli/src/ops/target.ts';
import { Note } from './fixtures/notesApp.ts';
import {
  batonJson,
  createOpsDeployment,
  flagsOf,
  hintWith,
  type OpsDeployment,
  pumpUntil,
} from './fixtures/opsDeployment.ts';

const APP = join(import.meta.dirname, 'fixtures', 'notesApp.ts');

describe('baton status: timers due and sweeper lag', () => {
  let deployment: OpsDeployment;

  beforeEach(async () => {
    deployment = await createOpsDeployment('lag');
  });

  /**
   * `baton status` with the CLI's clock at `now`: its JSON, and its human screen; each run
   * exits 0 when healthy, 3 when it found a problem.
   */
  async function statusAt(now: number) {
    const read = async (json: boolean) => {
      const out: string[] = [];
      const argv = ['status', ...flagsOf(deployment.options), ...(json ? ['--json'] : [])];
      const io = { out: (l: string) => out.push(l), err: () => {}, env: {}, now: () => now };
      return { code: await runOps(argv, io), out: out.join('\n') };
    };
    const [json, human] = [await read(true), await read(false)];
    const status = JSON.parse(json.out);
    expect([json.code, human.code]).toEqual(status.healthy ? [0, 0] : [3, 3]);
    return { json: status, human: human.out };
  }

  it('counts a timer nothing fired as due, and held sends no sweeper retired as lag', async () => {
    const baton = (...argv: string[]) => batonJson(deployment, [...argv, '--app', APP]);
    await baton('send', 'note/a', 'remind', '{"id":"r","inMs":60000}');
    await baton('send', 'note/a', 'pass', '{"to":"b","entry":"passed"}');
    await pumpUntil(deployment.queue, deployment.worker([Note]));
    expect((await batonJson(deployment, ['actors', 'get', 'note/b'])).state).toEqual({
      entries: ['passed'],
    });

    const now = await statusAt(Date.now());
    expect(now.json).toMatchObject({
      timersDue: 0,
      oldestTimerOverdueMs: null,
      sweeperLag: { actors: 0 },
      healthy: true,
    });

    // Three minutes on, a healthy sweeper may not have retired the held sends yet: no lag.
    expect((await statusAt(Date.now() + 3 * 60_000)).json.sweeperLag).toEqual({
      actors: 0,
      thresholdMs: 240_000,
      complete: true,
    });
    // Ten minutes on, with no sweeper or timer relay running.
    const later = await statusAt(Date.now() + 10 * 60_000);
    expect(later.json).toMatchObject({
      timersDue: 1,
      sweeperLag: { actors: 1, thresholdMs: 240_000 },
      healthy: false,
    });
    // Each problem names an actor to look at, and the command that shows it, on this deployment.
    const hint = (command: string) => hintWith(deployment.options, command);
    expect(later.json.problems).toEqual([
      `1 actor(s) holding sends no sweep retired, e.g. note/a (${hint('actors get note/a')} shows them, and which ones their targets have already; ${hint('backlog')} names the targets still waiting): the next sweep retires them, sending again any not sent; if they stay, see DrainFailuresAlarm (sends refused) and SweeperLagAlarm in docs/operations.md`,
      `timers fire late: the oldest due is note/a's timer r (${hint('timers list note/a')}): the sweeper fires them, see SweeperLagAlarm in docs/operations.md`,
    ]);
    // The command it names shows each held send: where it goes, and how long it waited.
    const heldAt = Date.now() + 10 * 60_000;
    const get = async (json: boolean) => {
      const out: string[] = [];
      const argv = ['actors', 'get', 'note/a', ...flagsOf(deployment.options)];
      const io = { out: (l: string) => out.push(l), err: () => {}, env: {}, now: () => heldAt };
      expect(await runOps(json ? [...argv, '--json'] : argv, io)).toBe(0);
      return out.join('\n');
    };
    const { heldSends, heldSendList } = JSON.parse(await get(true));
    expect(heldSends).toBe(1);
    expect(heldSendList).toEqual([
      {
        to: 'note/b',
        name: 'add',
        messageId: expect.any(String),
        since: expect.any(String),
        age: expect.stringMatching(/^10m \d+s$/),
        delivered: true,
      },
    ]);
    // note/b applied it already: the send waits for nothing but a sweep to retire it.
    expect(await get(false)).toMatch(
      /^held sends +1: add to note\/b, delivered 10m \d+s ago: a sweep retires it$/m,
    );
    expect(later.json.oldestTimerOverdueMs).toBeGreaterThan(8 * 60_000);
    expect(later.human).toMatch(/^timers due\s+1 \(oldest \d+m \d+s overdue\)$/m);
    expect(later.human).toMatch(
      /^sweeper lag\s+1 actor\(s\) holding sends no sweep retired for over 4m 0s$/m,
    );
    expect(later.human).toMatch(
      /^health\s+ATTENTION — 1 actor\(s\) holding sends no sweep retired, e\.g\. note\/a .*; timers fire late: .* \(not checked: /m,
    );
  });

  it('tells a held send its target does not have yet from one it has', async () => {
    const baton = (...argv: string[]) => batonJson(deployment, [...argv, '--app', APP]);
    const worker = deployment.worker([Note]);
    const get = async () => {
      const out: string[] = [];
      const io = { out: (l: string) => out.push(l), err: () => {}, env: {}, now: () => Date.now() };
      const argv = ['actors', 'get', 'note/a', ...flagsOf(deployment.options)];
      expect(await runOps(argv, io)).toBe(0);
      return { json: await baton('actors', 'get', 'note/a'), human: out.join('\n') };
    };
    await baton('send', 'note/a', 'pass', '{"to":"b","entry":"on its way"}');
    // One poll: note/a's turn commits and drains its send; note/b has not taken it yet.
    expect(await worker.pollOnce()).toBe(1);
    const sent = await get();
    expect(sent.json.heldSendList).toEqual([
      expect.objectContaining({ to: 'note/b', delivered: false }),
    ]);
    expect(sent.human).toMatch(
      /^held sends +1: add to note\/b, not delivered yet, waiting \d+m?s$/m,
    );
    // The inspector's page of the actor says the same.
    const inspected = await readActor({ store: deployment.store } as unknown as Target, 'note/a');
    expect(inspected.heldSends).toEqual([expect.objectContaining({ delivered: false })]);
    expect(inspected.history).toContainEqual(
      expect.objectContaining({ kind: 'sent', result: 'to note/b, not delivered yet' }),
    );
    // Parked at a paused note/b, it is delivered: note/b has it, shown as parked there.
    // note/b has no record yet: a pause before its first turn takes --force.
    await batonJson(deployment, ['actors', 'pause', 'note/b', '--force']);
    await pumpUntil(deployment.queue, worker);
    expect((await get()).json.heldSendList).toEqual([
      expect.objectContaining({ to: 'note/b', delivered: true }),
    ]);
    expect((await baton('actors', 'get', 'note/b')).parkedMessages).toBe(1);
  });
});
