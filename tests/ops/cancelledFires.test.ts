/**
 * The dead letter of a timer's fire whose timer is cancelled, on DynamoDB Local and ElasticMQ:
 * the engine's redrive forgets it and applies nothing, and the commands say so — `timers
 * cancel` that the fire stays kept and can be purged, `dead-letters list` and `show` that a
 * redrive of it applies nothing, and its redrive that it applied nothing, not that it is applied.
 * A fire parked at a paused actor, its timer cancelled, is said to apply nothing on the resume.
 */
import { join } from 'node:path';
import { fireTimers, shellQuote } from '@baton/core/engine';
import { beforeEach, describe, expect, it } from 'vitest';
import { Alarm, faults } from './fixtures/alarmApp.ts';
import {
  createOpsDeployment,
  flagsOf,
  hintWith,
  type OpsDeployment,
  pumpUntil,
  runBaton,
} from './fixtures/opsDeployment.ts';

const APP = join(import.meta.dirname, 'fixtures', 'alarmApp.ts');

describe('the dead letter of a cancelled timer’s fire', () => {
  let deployment: OpsDeployment;

  beforeEach(async () => {
    deployment = await createOpsDeployment('fires');
    faults.poisoned = true;
  });

  const baton = (...argv: string[]) =>
    runBaton([...argv, ...flagsOf(deployment.options), '--operator', 'ops']);
  const hint = (command: string) => hintWith(deployment.options, command);
  const work = (done?: () => Promise<boolean>) =>
    pumpUntil(deployment.queue, deployment.worker([Alarm]), done);

  /** `set` a timer `id` of `actor` due now, fired by hand (no sweeper runs here). */
  async function fire(actor: string, id: string): Promise<void> {
    const set = await baton('send', actor, 'set', JSON.stringify({ id, inMs: 1 }), '--app', APP);
    expect(set.code, set.err).toBe(0);
    await work();
    const due = await deployment.store.listDueTimers(Date.now() + 60_000, 10);
    await fireTimers(
      deployment.queue,
      due.filter((t) => t.actorId === actor),
    );
  }

  it('says the cancel keeps its fire as a dead letter, marks it in list and show, and says its redrive applies nothing', async () => {
    await fire('alarm/a', 'bell');
    await work(async () => (await deployment.store.listDeadLetters('alarm/a')).length === 1);
    const [letter] = await deployment.store.listDeadLetters('alarm/a');
    const id = letter!.messageId;
    const quoted = shellQuote(id);

    const cancelled = await baton('timers', 'cancel', 'alarm/a', 'bell', '--yes');
    expect(cancelled.code, cancelled.err).toBe(0);
    expect(cancelled.out).toBe(
      `timer bell of alarm/a cancelled; its fire was kept as a dead letter (message ${quoted}), which stays listed: a redrive of it applies nothing. Purge it: ${hint(`dead-letters purge alarm/a ${quoted}`)}`,
    );

    const listed = await baton('dead-letters', 'list');
    expect(listed.code, listed.err).toBe(0);
    const [header, row, ...notes] = listed.out.split('\n');
    expect(header).toMatch(/\bREDRIVE\b/);
    expect(row).toMatch(/^alarm\/a\s+ring\s+\S+\s+\d+\s+\S+\s+\S+\s+nothing\s+/);
    expect(notes).toEqual([
      `REDRIVE nothing: a timer's fire whose timer is no longer stored for it (its timer was cancelled): a redrive forgets it and applies nothing; purge it: ${hint('dead-letters purge <type/key> <message id>')}`,
    ]);
    const json = (await baton('dead-letters', 'list', '--json')).json();
    expect(json.deadLetters).toEqual([
      expect.objectContaining({ messageId: id, appliesNothing: 'timerCancelled' }),
    ]);

    const shown = await baton('dead-letters', 'show', 'alarm/a', id);
    expect(shown.out).toContain(
      `\nredrivable it would apply nothing: it is a timer's fire, and its timer was cancelled, so a redrive forgets it, running no handler; purge it: ${hint(`dead-letters purge alarm/a ${quoted}`)}`,
    );

    faults.poisoned = false;
    const preview = await baton('dead-letters', 'redrive', '--all', '--dry-run');
    expect(preview.out).toContain(
      `\n1 of them would apply nothing: it is a timer's fire, and its timer was cancelled (a redrive forgets such a letter, running no handler); purge it instead: ${hint(`dead-letters purge alarm/a ${quoted}`)}`,
    );
    const redriven = await baton('dead-letters', 'redrive', 'alarm/a', id, '--yes', '--json');
    expect(redriven.code, redriven.err).toBe(0);
    expect(redriven.json().appliesNothing).toEqual([
      { actor: 'alarm/a', messageId: id, reason: 'timerCancelled' },
    ]);
    // Said in words too (a second redrive of the letter still kept, applied once as nothing).
    const again = await baton('dead-letters', 'redrive', 'alarm/a', id, '--yes');
    expect(again.out).toBe(
      `redriven 1 dead letter(s): it applies nothing: it is a timer's fire, and its timer was cancelled, so its actor forgets it, running no handler\nit stays listed in ${hint('dead-letters list')} until its actor's turn forgets it`,
    );
    expect(again.out).not.toMatch(/is applied once/);
    await work(async () => (await deployment.store.listDeadLetters('alarm/a')).length === 0);
    expect((await deployment.store.load('alarm/a'))?.state).toEqual({ rang: [] });
  });

  it('says a cancel of a timer whose fire is parked at the paused actor leaves a fire that applies nothing', async () => {
    await fire('alarm/p', 'warm-up');
    await work(async () => (await deployment.store.listDeadLetters('alarm/p')).length === 1);
    faults.poisoned = false;
    expect((await baton('actors', 'pause', 'alarm/p', '--yes')).code).toBe(0);
    // Its letter redriven to the paused actor: the fire is parked there.
    const [letter] = await deployment.store.listDeadLetters('alarm/p');
    const id = letter!.messageId;
    expect((await baton('dead-letters', 'redrive', 'alarm/p', id, '--yes')).code).toBe(0);
    await work(
      async () => (await deployment.store.readDeadLetter('alarm/p', id))?.parked !== undefined,
    );

    const cancelled = await baton('timers', 'cancel', 'alarm/p', 'warm-up', '--yes');
    expect(cancelled.code, cancelled.err).toBe(0);
    expect(cancelled.out).toBe(
      `timer warm-up of alarm/p cancelled; its fire (message ${shellQuote(id)}) is parked at paused alarm/p: when alarm/p is resumed, it is forgotten, and applies nothing`,
    );
    const shown = await baton('dead-letters', 'show', 'alarm/p', id);
    expect(shown.out).toContain(
      "not a dead letter. It is a timer's fire, and its timer was cancelled: when alarm/p is resumed",
    );
    expect((await baton('actors', 'resume', 'alarm/p', '--yes')).code).toBe(0);
    await work(async () => (await deployment.store.listDeadLetters('alarm/p')).length === 0);
    expect((await deployment.store.load('alarm/p'))?.state).toEqual({ rang: [] });
  });
});
