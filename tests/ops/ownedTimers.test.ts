/**
 * The timers Baton keeps for itself, on DynamoDB Local and ElasticMQ through the `baton` CLI:
 * `timers cancel` refuses an ask's timeout (it holds the asker's continuation: cancelled, the
 * reply would be dropped as late and a workflow's call would wait for good) and every timer of a
 * workflow instance, saying what to do instead; the timer stays, and the reply still reaches the
 * workflow once its target is resumed.
 */
import type { LocalSqsEventSource } from '@baton/aws/local';
import { Client } from '@baton/core/client';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  createOpsDeployment,
  flagsOf,
  hintWith,
  type OpsDeployment,
  pumpUntil,
  runBaton,
} from './fixtures/opsDeployment.ts';
import { Shelf, Ship } from './fixtures/shipApp.ts';

describe('baton timers cancel of the timers Baton keeps', () => {
  let deployment: OpsDeployment;
  let source: LocalSqsEventSource;

  beforeEach(async () => {
    deployment = await createOpsDeployment('owned');
    source = deployment.worker([Shelf, Ship.actor]);
  });

  const baton = (...argv: string[]) =>
    runBaton([...argv, ...flagsOf(deployment.options), '--operator', 'ops']);
  const work = (done?: () => Promise<boolean>) => pumpUntil(deployment.queue, source, done);
  /** A hint's `baton <command>`: the engine's refusals name it with this run's target flags. */
  const hint = (command: string) => hintWith(deployment.options, command);
  const timersOf = async (id: string) =>
    (await baton('timers', 'list', id, '--json')).json().timers as Array<{
      id: string;
      kind: string;
    }>;

  it('refuses an ask’s timeout, naming what to do instead; the reply still reaches the workflow', async () => {
    // The shelf is paused while someone looks: the reservation the instance asks for waits.
    // (It has no record yet: a pause before its first turn takes --force.)
    expect((await baton('actors', 'pause', 'shelf/main', '--yes', '--force')).code).toBe(0);
    const client = new Client({
      actors: [Shelf, Ship.actor],
      store: deployment.store,
      queue: deployment.queue,
    }).asSystem();
    await client.start(Ship, 'x', { qty: 1 });
    await work();
    const ask = (await timersOf('wf-ship/x')).find((t) => t.kind === 'ask timeout');
    expect(ask).toBeDefined();

    const cancel = await baton('timers', 'cancel', 'wf-ship/x', ask!.id, '--yes');
    expect(cancel.code).toBe(2);
    expect(cancel.err).toContain(`timer ${ask!.id} is the timeout of wf-ship/x's ask of "reserve"`);
    expect(cancel.err).toContain('It was not cancelled');
    expect(cancel.err).toContain(
      `resume shelf/main if it is paused (${hint('actors resume shelf/main')}), redrive its dead letter (${hint('dead-letters list --type shelf')})`,
    );
    expect(cancel.err).not.toMatch(/"action":"timers cancel"/);
    expect((await timersOf('wf-ship/x')).map((t) => t.id)).toContain(ask!.id);

    await baton('actors', 'resume', 'shelf/main', '--yes');
    await work(
      async () =>
        (await baton('workflows', 'show', 'ship', 'x', '--json')).json().status === 'waiting',
    );
    const shown = (await baton('workflows', 'show', 'ship', 'x', '--json')).json();
    expect(shown.history[0]).toMatchObject({ kind: 'call', name: 'shelf.reserve', state: 'done' });
  }, 120_000);

  it('refuses every timer of a workflow instance: its run alone schedules and cancels them', async () => {
    const client = new Client({
      actors: [Shelf, Ship.actor],
      store: deployment.store,
      queue: deployment.queue,
    }).asSystem();
    await client.start(Ship, 'y', { qty: 1 });
    await work();
    await client.signal(Ship.ref('y'), 'packed', { box: 'B-1' });
    await work();
    // Completed: its retention's timer ends it later.
    const [expire] = await timersOf('wf-ship/y');
    expect(expire).toMatchObject({ id: 'wf:expire', kind: 'timer' });

    const cancel = await baton('timers', 'cancel', 'wf-ship/y', 'wf:expire', '--yes');
    expect(cancel.code).toBe(2);
    expect(cancel.err).toContain("timer wf:expire is workflow ship's own");
    expect(cancel.err).toContain(
      `(${hint('workflows cancel ship y')}); to hurry a wait, send its event (${hint('workflows signal ship y <event>')})`,
    );
    expect((await timersOf('wf-ship/y')).map((t) => t.id)).toEqual(['wf:expire']);
  }, 120_000);
});
