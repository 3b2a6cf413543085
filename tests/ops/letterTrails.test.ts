/**
 * What operators did to a dead letter's message, on DynamoDB Local and ElasticMQ through the
 * `baton` CLI: `actors end-failing` says the end takes effect at the message's next delivery, not
 * now, and once kept its letter says who ended it and when, in `dead-letters list`, `show` and
 * `outcome`; and a letter redriven, then kept again, tells how often it was redriven, when last,
 * and whether that redrive is not applied yet or did not apply it — not a fresh letter's look;
 * an end and a redrive made from `baton inspect`'s page are noted the same.
 */
import { join } from 'node:path';
import type { LocalSqsEventSource } from '@baton/aws/local';
import { resolveTarget, startInspector } from '@baton/cli/ops';
import type { FailingMessage } from '@baton/core/adapter';
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

describe('the trail of a dead letter: ended by an operator, redriven', () => {
  let deployment: OpsDeployment;
  let source: LocalSqsEventSource;

  beforeEach(async () => {
    deployment = await createOpsDeployment('trails');
    source = deployment.worker([Tally]);
    runs.clear();
    faults.poisoned = true;
  });

  const baton = (...argv: string[]) =>
    runBaton([...argv, ...flagsOf(deployment.options), '--operator', 'ops']);
  /** `baton <argv> --json`, expected to exit 0: its parsed output. */
  async function json(...argv: string[]) {
    const run = await baton(...argv, '--json');
    expect(run.code, run.err).toBe(0);
    return run.json();
  }
  const hint = (command: string) => hintWith(deployment.options, command);
  const work = (done?: () => Promise<boolean>) => pumpUntil(deployment.queue, source, done);
  const send = async (to: string, entry: string): Promise<string> =>
    (await json('send', to, 'add', JSON.stringify({ entry }), '--app', TALLY)).messageId;
  /** Runs the worker until `id`'s record holds `failing` as `wanted` says. */
  const failingUntil = async (id: string, wanted: (failing?: FailingMessage) => boolean) => {
    for (let i = 0; !wanted((await deployment.store.load(id))?.failing); i++) {
      if (i === 60) throw new Error(`${id} did not get there`);
      if ((await source.pollOnce()) === 0) await new Promise((r) => setTimeout(r, 100));
    }
  };
  /** The one dead letter `list --json` shows. */
  const listed = async () => {
    const { deadLetters } = await json('dead-letters', 'list');
    expect(deadLetters).toHaveLength(1);
    return deadLetters[0];
  };
  /** The line of `show`'s output that starts with `label`. */
  const lineOf = (out: string, label: string) =>
    out.split('\n').find((line) => line.startsWith(label));
  /** A line without the age it gives (`(1s ago)`), which moves on between two commands. */
  const sansAge = (line: string | undefined) => line?.replace(/\(\d[^)]* ago\)/, '(… ago)');

  it('says an end takes effect at the next delivery, and shows the letter ended by whom and when', async () => {
    await send('tally/end', 'a');
    const messageId = await send('tally/end', 'poison');
    const behind = await send('tally/end', 'b');
    await failingUntil('tally/end', (failing) => failing !== undefined);

    const ended = await baton('actors', 'end-failing', 'tally/end', messageId, '--yes');
    expect(ended.code, ended.err).toBe(0);
    const { at } = (await deployment.store.load('tally/end'))!.failing!.ended!;
    const endedAt = new Date(at).toISOString();
    expect(ended.out).toContain(
      `. It is not a dead letter yet, and takes effect at its next delivery, not now: SQS hides the message until the retry delay its last failure asked for is over`,
    );
    expect(ended.out).toContain(
      `${hint(`dead-letters show tally/end '${messageId}'`)} shows the letter, ended by ops at ${endedAt}, to redrive or purge`,
    );
    const again = await json('actors', 'end-failing', 'tally/end', messageId, '--yes');
    expect(again).toMatchObject({
      alreadyEnded: true,
      takesEffect: 'nextDelivery',
      ended: { at: endedAt, by: 'ops' },
    });

    // Before its next delivery, its outcome and the outcome of the message behind it say so.
    const waiting = await baton('outcome', messageId);
    expect(waiting.code).toBe(1);
    const end = `an operator ended it (ops, at ${endedAt}): not yet a dead letter, its next delivery keeps it as one without running its handler`;
    expect(waiting.err).toContain(
      `failed 1 time(s), last with RETRYABLE: the poison entry breaks add), and ${end}`,
    );
    expect((await baton('outcome', behind)).err).toContain(`shows it; ${end}`);

    await work(async () => (await deployment.store.load('tally/end'))?.failing === undefined);
    await work();
    expect(runs.get('poison')).toBe(1);

    const letter = await listed();
    expect(letter).toMatchObject({
      attempts: 1,
      redrives: 0,
      ended: { at: endedAt, by: 'ops', kept: true },
    });
    expect(letter.lastRedrive).toBeUndefined();
    const [header, row] = (await baton('dead-letters', 'list')).out.split('\n');
    expect(header).toMatch(/\bREDRIVE\s+ENDED\s+ERROR$/);
    expect(row).toMatch(/\byes\s+\S+( \S+)? ago\s+the poison entry breaks add$/);

    const shown = (await baton('dead-letters', 'show', 'tally/end', messageId)).out;
    expect(lineOf(shown, 'ended')).toMatch(
      new RegExp(
        `^ended {6}by ops at ${endedAt} \\([^)]+ ago\\), while it failed at the head of tally/end's inbox \\(actors end-failing\\): its next delivery kept it as this dead letter without running its handler again$`,
      ),
    );
    expect(lineOf(shown, 'redriven')).toBeUndefined();

    const outcome = await baton('outcome', messageId);
    expect(outcome.code, outcome.err).toBe(0);
    expect(sansAge(lineOf(outcome.out, 'ended'))).toBe(sansAge(lineOf(shown, 'ended')));
    expect((await json('outcome', messageId)).ended).toEqual({
      at: endedAt,
      by: 'ops',
      kept: true,
    });

    // Redriven, it fails at the head again and is ended again: that end is still to take effect.
    const { at: keptAt } = await listed();
    expect((await baton('dead-letters', 'redrive', 'tally/end', messageId, '--yes')).code).toBe(0);
    await failingUntil('tally/end', (failing) => failing?.id === messageId);
    const second = await json('actors', 'end-failing', 'tally/end', messageId, '--yes');
    const pending = await listed();
    expect(pending).toMatchObject({
      at: keptAt,
      redrives: 1,
      ended: { at: second.ended.at, kept: false },
      lastRedrive: { result: 'notAppliedYet' },
    });
    expect((await baton('dead-letters', 'list')).out.split('\n')[1]).toMatch(
      / ago, to take effect {2}1, last /,
    );
    expect(
      lineOf((await baton('dead-letters', 'show', 'tally/end', messageId)).out, 'ended'),
    ).toMatch(/: its next delivery keeps it as a dead letter again, without running its handler$/);
    await work(async () => (await listed()).at !== keptAt);
    expect(await listed()).toMatchObject({
      attempts: 1,
      redrives: 1,
      ended: { at: second.ended.at, kept: true },
      lastRedrive: { result: 'keptAgain' },
    });
    expect(runs.get('poison')).toBe(2);
  });

  it('counts each redrive of a letter kept again, says when the last was and what came of it', async () => {
    const messageId = await send('tally/r', 'poison');
    await work(async () => (await json('dead-letters', 'list')).total === 1);
    const fresh = await listed();
    expect(fresh).toMatchObject({ attempts: 3, redrives: 0 });
    expect(fresh.lastRedrive).toBeUndefined();
    expect((await baton('dead-letters', 'list')).out.split('\n')[0]).not.toMatch(/REDRIVEN|ENDED/);

    /** Redrives the letter, still failing; resolves once the worker kept it again. */
    const redriveAndFail = async () => {
      const { at } = await listed();
      expect((await baton('dead-letters', 'redrive', 'tally/r', messageId, '--yes')).code).toBe(0);
      const sent = await listed();
      expect(sent.lastRedrive).toEqual({
        at: expect.stringMatching(ISO_TIME),
        by: 'ops',
        result: 'notAppliedYet',
      });
      // Redriven again before it came back: the same keeping, counted once.
      expect((await baton('dead-letters', 'redrive', 'tally/r', messageId, '--yes')).code).toBe(0);
      expect((await listed()).redrives).toBe(sent.redrives);
      const [header, row] = (await baton('dead-letters', 'list')).out.split('\n');
      expect(header).toMatch(/\bREDRIVE\s+REDRIVEN\s+ERROR$/);
      expect(row).toContain(`  ${sent.redrives}, last `);
      expect(row).toContain(' ago, not applied yet  ');
      const shown = (await baton('dead-letters', 'show', 'tally/r', messageId)).out;
      expect(lineOf(shown, 'redriven')).toContain(
        `time(s), last at ${(await listed()).lastRedrive.at} (`,
      );
      expect(lineOf(shown, 'redriven')).toContain(
        ") by ops, not applied yet: the letter stays kept until tally/r's turn applies it",
      );
      await work(async () => (await listed()).at !== at);
      return sent.redrives;
    };

    expect(await redriveAndFail()).toBe(1);
    const once = await listed();
    // Kept again, it looks no fresher than it is: redriven once, and that redrive did not apply it.
    expect(once).toMatchObject({
      attempts: 3,
      redrives: 1,
      lastRedrive: { by: 'ops', result: 'keptAgain' },
    });
    expect((await baton('dead-letters', 'list')).out.split('\n')[1]).toContain('  1, last ');
    expect(await redriveAndFail()).toBe(2);
    const twice = await listed();
    expect(twice).toMatchObject({ redrives: 2, lastRedrive: { result: 'keptAgain' } });
    expect((await baton('dead-letters', 'list')).out.split('\n')[1]).toMatch(
      / {2}2, last \S+( \S+)? ago, kept again {2}/,
    );
    const keptAgain = `redriven   2 time(s), last at ${twice.lastRedrive.at} (`;
    const didNotApply = `) by ops, which did not apply it: it was kept again at ${twice.at}, its attempts counted afresh`;
    const shown = lineOf(
      (await baton('dead-letters', 'show', 'tally/r', messageId)).out,
      'redriven',
    );
    expect(shown).toContain(keptAgain);
    expect(shown).toContain(didNotApply);
    const outcome = await baton('outcome', messageId);
    expect(sansAge(lineOf(outcome.out, 'redriven'))).toBe(sansAge(shown));
    expect(await json('outcome', messageId)).toMatchObject({
      deadLetter: 'kept',
      redrives: 2,
      lastRedrive: twice.lastRedrive,
    });
    expect(runs.get('poison')).toBe(9);

    // Fixed, the next redrive applies it once, and the letter leaves the list.
    faults.poisoned = false;
    await json('dead-letters', 'redrive', 'tally/r', messageId, '--yes');
    await work();
    expect((await json('dead-letters', 'list')).deadLetters).toEqual([]);
    expect(runs.get('poison')).toBe(10);
  });

  it('notes an end and a redrive made from the inspector’s page as the commands note them', async () => {
    const messageId = await send('tally/i', 'poison');
    await failingUntil('tally/i', (failing) => failing !== undefined);
    const page = await startInspector({
      target: await resolveTarget(deployment.options, {}),
      allowActions: true,
      operator: async () => 'page-ops',
      audit: async () => {},
    });
    try {
      const act = async (action: string) => {
        const response = await fetch(new URL(`/_baton/api/${action}`, page.url), {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-baton-token': page.token },
          body: JSON.stringify({ actorId: 'tally/i', messageId }),
        });
        expect(response.status, await response.clone().text()).toBe(200);
      };
      await act('end-failing');
      await work(async () => (await json('dead-letters', 'list')).total === 1);
      expect(await listed()).toMatchObject({
        redrives: 0,
        ended: { by: 'page-ops', kept: true, at: expect.stringMatching(ISO_TIME) },
      });
      const { at } = await listed();
      await act('redrive');
      expect((await listed()).lastRedrive).toMatchObject({
        by: 'page-ops',
        result: 'notAppliedYet',
      });
      await work(async () => (await listed()).at !== at);
      expect(await listed()).toMatchObject({
        redrives: 1,
        lastRedrive: { by: 'page-ops', result: 'keptAgain' },
      });
    } finally {
      await page.close();
    }
  });
});
