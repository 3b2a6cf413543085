/**
 * `baton outcome` of a client message that has no outcome, on DynamoDB Local and ElasticMQ: it
 * says what holds the message when its actor's record or dead letters tell — failing at the
 * head of the actor's inbox, parked at the paused actor, or dead-lettered with its outcome past
 * the retention window and its letter kept — rather than "not processed yet", with the command
 * that shows it on the same deployment.
 */
import { join } from 'node:path';
import { runOps } from '@baton/cli/ops';
import { shellQuote } from '@baton/core/engine';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  createOpsDeployment,
  flagsOf,
  hintWith,
  type OpsDeployment,
  pumpUntil,
} from './fixtures/opsDeployment.ts';
import { faults, Tally } from './fixtures/tallyApp.ts';

const APP = join(import.meta.dirname, 'fixtures', 'tallyApp.ts');
const DAY = 86_400_000;

describe('baton outcome of a message that has none', () => {
  let deployment: OpsDeployment;

  beforeEach(async () => {
    deployment = await createOpsDeployment('held');
    faults.poisoned = true;
  });

  /** `baton <argv>` with the CLI's clock `ahead` ms past now: its exit code, output and error. */
  async function baton(argv: readonly string[], ahead = 0) {
    const out: string[] = [];
    const err: string[] = [];
    const io = {
      out: (l: string) => out.push(l),
      err: (l: string) => err.push(l),
      env: {},
      now: () => Date.now() + ahead,
    };
    const code = await runOps([...argv, ...flagsOf(deployment.options), '--yes'], io);
    return { code, out: out.join('\n'), err: err.join('\n') };
  }
  const send = async (to: string, entry: string) => {
    const sent = await baton([
      'send',
      to,
      'add',
      JSON.stringify({ entry }),
      '--app',
      APP,
      '--json',
    ]);
    expect(sent.code, sent.err).toBe(0);
    return JSON.parse(sent.out).messageId as string;
  };
  const hint = (command: string) => hintWith(deployment.options, command);

  it('says a message is failing at its actor’s head, then that its dead letter is kept once its outcome expired', async () => {
    const id = await send('tally/o', 'poison');
    const source = deployment.worker([Tally]);
    for (let i = 0; (await deployment.store.load('tally/o'))?.failing === undefined; i++) {
      if (i >= 40) throw new Error('the poison message did not fail');
      if ((await source.pollOnce()) === 0) await new Promise((r) => setTimeout(r, 100));
    }
    const failing = await baton(['outcome', id]);
    expect(failing.code).toBe(1);
    expect(failing.err).toMatch(
      /^baton outcome: no outcome of \S+: it is failing at the head of tally\/o's inbox \(failing for \d+(ms|s), failed \d time\(s\), last with RETRYABLE: the poison entry breaks add\), and is retried until applied or dead-lettered: /,
    );
    expect(failing.err).toContain(`: ${hint('actors get tally/o')} shows it`);

    await pumpUntil(deployment.queue, source, async () => {
      return (await deployment.store.listDeadLetters('tally/o')).length === 1;
    });
    // Today its outcome tells; 15 days on, past the outcome's 14, its letter still does.
    expect((await baton(['outcome', id])).out).toMatch(/^failed DEAD_LETTERED: /);
    const later = await baton(['outcome', id], 15 * DAY);
    expect(later.code).toBe(1);
    expect(later.err).toBe(
      `baton outcome: no outcome of ${id}: it was dead-lettered, and its outcome is older than the retention window; its dead letter is kept: ${hint(`dead-letters show tally/o ${shellQuote(id)}`)}`,
    );
  });

  it('says a message is parked at its paused actor', async () => {
    await send('tally/q', 'a');
    const source = deployment.worker([Tally]);
    await pumpUntil(deployment.queue, source);
    expect((await baton(['actors', 'pause', 'tally/q', '--operator', 'ops'])).code).toBe(0);
    const id = await send('tally/q', 'b');
    await pumpUntil(deployment.queue, source);
    const parked = await baton(['outcome', id]);
    expect(parked.code).toBe(1);
    expect(parked.err).toBe(
      `baton outcome: no outcome of ${id}: it is parked at tally/q, which is paused: resumed (${hint('actors resume tally/q')}), it applies it`,
    );
  });
  it('says a dead letter redriven to its paused actor is parked there, not purged, and is applied on the resume', async () => {
    const id = await send('tally/r', 'poison');
    const source = deployment.worker([Tally]);
    await pumpUntil(deployment.queue, source, async () => {
      return (await deployment.store.listDeadLetters('tally/r')).length === 1;
    });
    expect((await baton(['actors', 'pause', 'tally/r', '--operator', 'ops'])).code).toBe(0);
    faults.poisoned = false;
    const redriven = await baton(['dead-letters', 'redrive', 'tally/r', id, '--operator', 'ops']);
    expect(redriven.code, redriven.err).toBe(0);
    expect(redriven.out).toContain('parked there until resumed');
    await pumpUntil(deployment.queue, source);
    expect((await deployment.store.readDeadLetter('tally/r', id))?.parked).toBeDefined();

    // No outcome yet, as for a message parked on its first delivery: not a purged letter.
    const parked = await baton(['outcome', id]);
    expect(parked.code).toBe(1);
    expect(parked.err).toBe(
      `baton outcome: no outcome of ${id} yet: it was dead-lettered, then redriven while tally/r is paused, and is parked there; it is applied, once, when tally/r is resumed (${hint('actors resume tally/r')}). Do not send it again under a new key: it would be applied twice`,
    );
    const json = await baton(['outcome', id, '--json']);
    expect(json.code).toBe(1);
    expect(json.out).not.toContain('purged');
    expect(JSON.parse(json.out).error).toMatchObject({
      code: 'NOT_FOUND',
      details: { messageId: id, actor: 'tally/r', parked: true },
    });

    expect((await baton(['actors', 'resume', 'tally/r', '--operator', 'ops'])).code).toBe(0);
    await pumpUntil(deployment.queue, source, async () => {
      const record = await deployment.store.readIdempotency(id);
      return record?.outcome.ok === true;
    });
    expect((await baton(['outcome', id])).out).toBe('ok null');
  });
});
