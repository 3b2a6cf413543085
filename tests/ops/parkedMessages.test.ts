/**
 * Messages parked at a paused actor, on DynamoDB Local and ElasticMQ through the `baton` CLI:
 * `dead-letters show` shows one as parked (applied, in order, on resume), `purge` and `redrive`
 * refuse it saying so — not that it is gone — and a dead letter redriven to a paused actor is
 * said parked there until it is resumed, not applied in its next turn.
 */
import { join } from 'node:path';
import type { LocalSqsEventSource } from '@baton/aws/local';
import { shellQuote } from '@baton/core/engine';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  createOpsDeployment,
  flagsOf,
  hintWith,
  type OpsDeployment,
  pumpUntil,
  runBaton,
} from './fixtures/opsDeployment.ts';
import { faults, runs, Tally } from './fixtures/tallyApp.ts';

const TALLY = join(import.meta.dirname, 'fixtures', 'tallyApp.ts');
/** A time as every `--json` output gives it. */
const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('baton dead-letters on messages parked at a paused actor', () => {
  let deployment: OpsDeployment;
  let source: LocalSqsEventSource;

  beforeEach(async () => {
    deployment = await createOpsDeployment('parked');
    source = deployment.worker([Tally]);
    runs.clear();
    faults.poisoned = false;
  });

  const baton = (...argv: string[]) =>
    runBaton([...argv, ...flagsOf(deployment.options), '--operator', 'ops']);
  const work = (done?: () => Promise<boolean>) => pumpUntil(deployment.queue, source, done);
  const hint = (command: string) => hintWith(deployment.options, command);
  /** Sends `entry` to `actor`; the message id it was answered with. */
  async function add(actor: string, entry: string): Promise<string> {
    const sent = await baton(
      'send',
      actor,
      'add',
      JSON.stringify({ entry }),
      '--app',
      TALLY,
      '--json',
    );
    expect(sent.code, sent.err).toBe(0);
    return sent.json().messageId;
  }

  it('says, sending to a paused actor, that the message is parked there until it is resumed', async () => {
    // Paused before its first turn, with no record yet: --force.
    expect((await baton('actors', 'pause', 'tally/s', '--yes', '--force')).code).toBe(0);
    const sent = await baton('send', 'tally/s', 'add', '{"entry":"held"}', '--app', TALLY);
    expect(sent.code, sent.err).toBe(0);
    expect(sent.err).toContain('tally/s is paused (since ');
    expect(sent.err).toContain(
      `: the message is parked there, and applied, in order, when it is resumed (${hint('actors resume tally/s')})`,
    );
    const running = await baton('send', 'tally/r', 'add', '{"entry":"a"}', '--app', TALLY);
    expect(running.err).not.toContain('is paused');
  });

  it('shows a parked message as parked, and refuses to purge or redrive it, saying why', async () => {
    await add('tally/p', 'a');
    await work();
    expect((await baton('actors', 'pause', 'tally/p', '--yes')).code).toBe(0);
    const id = await add('tally/p', 'held');
    await work();
    expect((await baton('actors', 'get', 'tally/p', '--json')).json()).toMatchObject({
      parkedMessages: 1,
      parkedMessageIds: [id],
    });
    // The actor names its parked message, quoted for the shell, and the command that shows it.
    const got = await baton('actors', 'get', 'tally/p');
    expect(got.out).toContain(
      `parked messages  1, in the order a resume applies them: ${shellQuote(id)} — ${hint(`dead-letters show tally/p ${shellQuote(id)}`)} shows one`,
    );
    // baton status names the actor and the commands for it, which run as pasted (no <type/key>)
    // with the target options it says once, after its health line.
    const status = (await baton('status')).out.split('\n');
    expect(status).toContain(
      `parked${' '.repeat(14)}1 message(s) of 1 paused actor(s): tally/p (1) — baton actors get tally/p; baton actors resume tally/p applies them`,
    );
    expect(status).toContain(
      `commands${' '.repeat(12)}run each baton command above with these options, to act on this deployment: ${flagsOf(deployment.options).join(' ')}`,
    );

    const show = await baton('dead-letters', 'show', 'tally/p', id);
    expect(show.code, show.err).toBe(0);
    expect(show.out).toMatch(
      /^parked {5}at .*, number 1 of the messages tally\/p holds while paused: not a dead letter, it is applied, in order, when tally\/p is resumed \(/m,
    );
    expect(show.out).toContain(
      `when tally/p is resumed (${hint('actors resume tally/p')}); it cannot be redriven nor purged`,
    );
    expect(show.out).toContain('payload    {"entry":"held"}');
    expect((await baton('dead-letters', 'show', 'tally/p', id, '--json')).json()).toMatchObject({
      messageId: id,
      parked: 1,
    });

    for (const action of ['purge', 'redrive']) {
      const run = await baton('dead-letters', action, 'tally/p', id, '--yes');
      expect(run.code, action).toBe(1);
      expect(run.err, action).toContain(
        `message ${id} is parked at tally/p, which is paused, not dead-lettered: it is applied, in order, when tally/p is resumed`,
      );
      expect(run.err, action).not.toMatch(/keeps no dead letter/);
    }
    const redrive = await baton('dead-letters', 'redrive', 'tally/p', id, '--yes');
    expect(redrive.err).toContain(`resume tally/p to apply it (${hint('actors resume tally/p')})`);

    await baton('actors', 'resume', 'tally/p', '--yes');
    await work();
    expect(runs.get('held')).toBe(1);
  }, 120_000);

  it('names in baton status the paused actors that hold parked messages, with the commands for them', async () => {
    for (const actor of ['tally/s1', 'tally/s2']) {
      // Paused before their first turn, with no record yet: --force.
      expect((await baton('actors', 'pause', actor, '--yes', '--force')).code).toBe(0);
      await add(actor, 'held');
    }
    await add('tally/s2', 'held too');
    await work();

    const status = await baton('status');
    expect(status.code, status.err).toBe(0);
    // Parked messages are no problem (an operator paused these actors), but the operator paged
    // for them must learn which actors hold them: dead-letters list leaves them out.
    expect(status.out.split('\n')).toContain(
      `parked${' '.repeat(14)}3 message(s) of 2 paused actor(s): tally/s2 (2), tally/s1 (1) — baton actors get tally/s2 shows the first; baton actors resume tally/s2 applies them, and likewise for the others`,
    );
    expect((await baton('status', '--json')).json().parked).toEqual({
      messages: 3,
      actors: 2,
      byActor: { 'tally/s2': 2, 'tally/s1': 1 },
    });
    expect(status.out.split('\n')).toContain(
      `paused${' '.repeat(14)}2 actor(s): tally/s1 (by ops, 1 parked), tally/s2 (by ops, 2 parked) — baton actors get tally/s1 shows the first; baton actors resume tally/s1 resumes it, and likewise for the others`,
    );
  }, 120_000);

  it('names in baton status an actor paused with no message parked, and the commands to look at and resume it', async () => {
    await add('tally/busy', 'a');
    await work();
    // Paused by an operator, nothing sent to it since: no parked message shows it. (It has no
    // record yet, so the pause takes --force.)
    expect((await baton('actors', 'pause', 'tally/idle', '--yes', '--force')).code).toBe(0);
    await work();

    const status = await baton('status');
    expect(status.code, status.err).toBe(0);
    expect(status.out).toMatch(/^parked {14}0 message\(s\) of 0 paused actor\(s\)$/m);
    expect(status.out.split('\n')).toContain(
      `paused${' '.repeat(14)}1 actor(s): tally/idle (by ops, nothing parked) — baton actors get tally/idle; baton actors resume tally/idle resumes it`,
    );
    expect(status.out).not.toMatch(/paused actors past/);
    expect((await baton('status', '--json')).json().paused).toEqual({
      actors: [{ id: 'tally/idle', at: expect.stringMatching(ISO_TIME), by: 'ops' }],
      workflows: [],
      complete: true,
    });

    await baton('actors', 'resume', 'tally/idle', '--yes');
    expect((await baton('status')).out).toMatch(/^paused {14}0 actor\(s\)$/m);
  }, 120_000);

  it('says a dead letter redriven to a paused actor is parked there until it is resumed', async () => {
    faults.poisoned = true;
    await add('tally/q', 'poison');
    await add('tally/r', 'poison');
    await work(async () => (await baton('dead-letters', 'list', '--json')).json().total === 2);
    faults.poisoned = false;
    expect((await baton('actors', 'pause', 'tally/q', '--yes')).code).toBe(0);

    const redrive = await baton('dead-letters', 'redrive', '--all', '--yes');
    expect(redrive.code, redrive.err).toBe(0);
    // The resume named with the paused actor's id, not a placeholder: pasted, it resumes it.
    expect(redrive.out.split('\n')[0]).toBe(
      `redriven 2 dead letter(s): 1 to paused actor(s) (tally/q), parked there until resumed, then applied once, in order (${hint('actors resume tally/q')}); the other 1 each applied once, in its actor's next turn`,
    );
    expect(redrive.out).not.toMatch(/: each is applied once/);
    await work();
    expect((await baton('actors', 'get', 'tally/r', '--json')).json().state.entries).toEqual([
      'poison',
    ]);
    expect((await baton('actors', 'get', 'tally/q', '--json')).json().parkedMessages).toBe(1);
  }, 120_000);
});
