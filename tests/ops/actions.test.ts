/**
 * The `baton` commands the drills leave out, on DynamoDB Local and ElasticMQ through the CLI's
 * entry function: `ask`; `outcome` by actor and idempotency key; `timers cancel` (the timer
 * never fires); `dead-letters list --since` and `--limit`; `dead-letters purge` (one, and
 * `--all`) and `redrive --all` with a filter (each applied once), each refused without `--yes`,
 * previewed by `--dry-run` and audited; `actors get --app` checking the state against the app;
 * `actors get` showing the message failing at the head of an actor's inbox, with its attempts,
 * handler and error (or, counted by an older Baton, where the worker's log has them);
 * none of them taking the proof a redrive left for a dead letter; an option a command does not
 * take refused before anything is done; a filter matching nothing saying what there is;
 * `actors resume` of an actor not paused refused, and `actors pause` of an id of no record, or of a
 * type `--app` lacks (the nearest offered), unless `--force`; a hint's actor id quoted for a shell; a
 * message kept because its state would pass the record limit, listed and shown with its cause;
 * a letter kept as too old to tell whether it was applied, marked, shown, left by `redrive
 * --all` and redriven only with `--force`; a letter kept in a life of its actor that has ended,
 * the same; a client's letter whose key's claim has lapsed, marked and refused as too old; and the letter of an ask's timeout refused a purge
 * (left by `purge --all`), while a purged reply's ask times out.
 * With BATON_DRILL_OUT=<file>, the commands and what they printed are written there.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LocalSqsEventSource } from '@baton/aws/local';
import { type DeadLetter, RECORD_FORMAT, type Timer, timerMessageId } from '@baton/core/adapter';
import { fireTimers, shellQuote } from '@baton/core/engine';
import { beforeEach, describe, expect, it } from 'vitest';
import { Note, faults as noteFaults } from './fixtures/notesApp.ts';
import {
  createOpsDeployment,
  flagsOf,
  hintWith,
  type OpsDeployment,
  pumpUntil,
  runBaton,
  shellLine,
  shellWords,
} from './fixtures/opsDeployment.ts';
import { faults, runs, Tally } from './fixtures/tallyApp.ts';
import { unansweringProxy } from './fixtures/unansweringProxy.ts';

const NOTES = join(import.meta.dirname, 'fixtures', 'notesApp.ts');
const TALLY = join(import.meta.dirname, 'fixtures', 'tallyApp.ts');
/** A time as every `--json` output gives it. */
const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/**
 * A client's `add` of "late" to note `id`, as the engine keeps it when it failed its attempts;
 * `envelope` and `letter` change what differs.
 */
function clientLetter(
  id: string,
  messageId: string,
  envelope: Partial<DeadLetter['envelope']> = {},
  letter: Partial<DeadLetter> = {},
): DeadLetter {
  const at = envelope.sentAt ?? Date.now();
  return {
    actorId: id,
    messageId,
    envelope: {
      id: messageId,
      from: 'ingress',
      seq: 0,
      to: id,
      name: 'add',
      payload: { entry: 'late' },
      sentAt: at,
      ...envelope,
    },
    redrivable: true,
    error: { code: 'RETRYABLE', message: 'failed', details: {} },
    attempts: 3,
    at,
    ...letter,
  };
}

describe('baton ask, outcome, timers cancel, dead-letters purge and redrive --all on the emulators', () => {
  let deployment: OpsDeployment;
  let source: LocalSqsEventSource;

  beforeEach(async () => {
    deployment = await createOpsDeployment('actions');
    source = deployment.worker([Note, Tally]);
    runs.clear();
    faults.poisoned = true;
  });

  /** Runs `baton <argv>` against the deployment as operator `ops` (recorded as the drills are). */
  async function baton(...argv: string[]) {
    const run = await runBaton([...argv, ...flagsOf(deployment.options), '--operator', 'ops']);
    const file = process.env.BATON_DRILL_OUT;
    if (file) appendFileSync(file, `$ baton ${shellLine(argv)}\n${run.out}\n${run.err}\n\n`);
    return run;
  }

  /** `baton <argv> --json`, expected to exit 0: its parsed output. */
  async function json(...argv: string[]) {
    const run = await baton(...argv, '--json');
    expect(run.code, run.err).toBe(0);
    return run.json();
  }

  const work = (done?: () => Promise<boolean>) => pumpUntil(deployment.queue, source, done);
  /** A hint's `baton <command>`: with the deployment's target flags, as every command here runs. */
  const hint = (command: string) => hintWith(deployment.options, command);
  const entriesOf = async (id: string) => (await json('actors', 'get', id)).state.entries;

  it('asks an actor for its reply, and reads a keyed send’s outcome by its actor and key', async () => {
    let settled = false;
    const asked = baton('ask', 'note/a', 'add', '{"entry":"asked"}', '--app', NOTES, '--json');
    void asked.finally(() => (settled = true));
    await work(async () => settled);
    const reply = await asked;
    expect(reply.code, reply.err).toBe(0);
    expect(reply.json()).toEqual({ value: null });
    expect(reply.err).toMatch(/"by":"ops","action":"ask","actor":"note\/a","name":"add"/);

    const sent = await baton(
      'send',
      'note/a',
      'add',
      '{"entry":"keyed"}',
      '--app',
      NOTES,
      '--key',
      'k-1',
    );
    expect(sent.out).toMatch(/^sent add to note\/a\nmessage id 'ingress:\["note\/a","k-1",/);
    await work();
    // Asked again with the key: the stored reply, at once, not applied again.
    const again = await baton(
      'ask',
      'note/a',
      'add',
      '{"entry":"keyed"}',
      '--app',
      NOTES,
      '--key',
      'k-1',
    );
    expect(again.out).toBe('null');
    expect(await entriesOf('note/a')).toEqual(['asked', 'keyed']);
    expect(await json('outcome', 'note/a', 'k-1')).toMatchObject({
      actor: 'note/a',
      outcome: { ok: true },
    });
    expect((await baton('outcome', 'note/a', 'k-1')).out).toBe('ok null');
    const unknown = await baton('outcome', 'note/a', 'k-2');
    expect(unknown.code).toBe(1);
    // A key names a message per caller, said first: the CLI's own scope is the one read.
    expect(unknown.err).toMatch(
      /no outcome of ingress:\S+ under the CLI's own caller scope\. A key names a message per caller: .*--caller <caller>.*\. Sent by the CLI: it is not processed yet/,
    );
    // Or SQS moved it to the inbox's dead-letter queue: the command that lists it, for this target.
    expect(unknown.err).toContain(
      `or it is in the inbox's dead-letter queue (SQS moved it there after maxReceiveCount receives: ${hint('queue-dead-letters list')} shows it)`,
    );
  });

  it('says how to read a timed-out ask’s outcome, or ask again, under the key it chose: never twice applied', async () => {
    await json('send', 'note/k', 'add', '{"entry":"a"}', '--app', NOTES);
    await work();
    // Held while someone looks: the ask gets no reply in time.
    await json('actors', 'pause', 'note/k', '--yes');
    const argv = ['ask', 'note/k', 'add', '{"entry":"once"}', '--app', NOTES];
    const first = await baton(...argv, '--timeout', '1');
    expect(first.code).toBe(1);
    const key = /"key":"([^"]+)"/.exec(first.err)?.[1];
    const error = first.err.split('\n').find((line) => line.startsWith('baton ask:'));
    expect(error).toBe(
      `baton ask: no reply from note/k to "add" within 1s; the message was sent under the key ${key} and may still be applied (its actor may be paused or behind). Do not run the same command again without --key: it would send the message again, under a new key. Read its outcome once processed: ${hint(`outcome note/k ${key}`)}; or wait for its reply again under the same key: ${hint(`ask note/k add '{"entry":"once"}' --app ${NOTES} --key ${key}`)}`,
    );
    await json('actors', 'resume', 'note/k', '--yes');
    await work();
    expect((await baton('outcome', 'note/k', key!)).out).toBe('ok null');
    // Asked again as it says: the stored reply, the message applied once.
    const again = await baton(...argv, '--key', key!);
    expect(again.out).toBe('null');
    expect(await entriesOf('note/k')).toEqual(['a', 'once']);
  });

  it('cancels a timer, which then never fires, only with --yes, and audits it', async () => {
    for (const id of ['soon', 'kept']) {
      await json('send', 'note/t', 'remind', JSON.stringify({ id, inMs: 1 }), '--app', NOTES);
    }
    await work();
    const listed = await json('timers', 'list', 'note/t');
    expect(listed.timers.map((t: { id: string }) => t.id).sort()).toEqual(['kept', 'soon']);

    expect((await baton('timers', 'list', 'note/t')).out).toMatch(
      /^ID\s+KIND\s+NAME\s+DUE\s+IN\s+PAYLOAD\n(soon|kept)\s+timer\s+ring\s+\S+\s+overdue \S+\s+\{"id":"(soon|kept)"\}\n/,
    );
    const unconfirmed = await baton('timers', 'cancel', 'note/t', 'soon');
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.err).toMatch(/pass --yes to confirm/);
    const cancelled = await baton('timers', 'cancel', 'note/t', 'soon', '--yes');
    expect(cancelled.code, cancelled.err).toBe(0);
    expect(cancelled.out).toBe('timer soon of note/t cancelled');
    expect(cancelled.err).toMatch(/"by":"ops","action":"timers cancel","actor":"note\/t"/);
    expect((await json('timers', 'list', 'note/t')).timers).toEqual([
      expect.objectContaining({ id: 'kept', name: 'ring' }),
    ]);

    // The sweeper fires what is due: only the timer left rings.
    const due = await deployment.store.listDueTimers(Date.now() + 60_000, 10);
    expect(due.map((t) => t.id)).toEqual(['kept']);
    await fireTimers(deployment.queue, due);
    await work();
    expect(await entriesOf('note/t')).toEqual(['rang kept']);
    expect((await baton('timers', 'list', 'note/t')).out).toBe('note/t has no pending timers');
  });

  it('shows what each timer delivers: its payload cut in the table, whole with --json', async () => {
    const id = `reminder-${'x'.repeat(50)}`;
    await json('send', 'note/p', 'remind', JSON.stringify({ id, inMs: 3_600_000 }), '--app', NOTES);
    await work();
    const listed = await baton('timers', 'list', 'note/p');
    expect(listed.code, listed.err).toBe(0);
    const [header, row, footer] = listed.out.split('\n');
    expect(header).toMatch(/^ID\s+KIND\s+NAME\s+DUE\s+IN\s+PAYLOAD$/);
    expect(row).toMatch(/\s+ring\s+\S+\s+59m \d+s\s+\{"id":"reminder-x{23}…$/);
    expect(footer).toBe('each payload whole: --json');
    expect((await json('timers', 'list', 'note/p')).timers).toEqual([
      expect.objectContaining({ id, name: 'ring', payload: { id } }),
    ]);
  });

  it('filters dead letters by --since, purges one and then --all, and redrives --all of a filter once each', async () => {
    const poison = async (...actors: string[]) => {
      for (const id of actors) await json('send', id, 'add', '{"entry":"poison"}', '--app', TALLY);
      await work(async () => (await json('dead-letters', 'list')).deadLetters.length >= 4);
    };
    await json('send', 'tally/p3', 'add', '{"entry":"poison"}', '--app', TALLY);
    await json('send', 'tally/p4', 'add', '{"entry":"poison"}', '--app', TALLY);
    await work(async () => (await json('dead-letters', 'list')).deadLetters.length === 2);
    const between = new Date(Date.now() + 1).toISOString();
    await new Promise((resolve) => setTimeout(resolve, 5));
    // tally/p1's is a client's ask, told DEAD_LETTERED; tally/p2's a plain send.
    let told = false;
    const asked = baton('ask', 'tally/p1', 'add', '{"entry":"poison"}', '--app', TALLY);
    void asked.finally(() => (told = true));
    await poison('tally/p2');
    await work(async () => told);
    expect((await asked).code).toBe(1);
    expect(runs.get('poison')).toBe(12);

    const ids = (list: { actor: string }[]) => list.map((l) => l.actor).sort();
    expect(ids((await json('dead-letters', 'list', '--since', '1h')).deadLetters)).toEqual([
      'tally/p1',
      'tally/p2',
      'tally/p3',
      'tally/p4',
    ]);
    expect(ids((await json('dead-letters', 'list', '--since', between)).deadLetters)).toEqual([
      'tally/p1',
      'tally/p2',
    ]);
    // --limit shows the oldest, and says how many match in all, by code.
    const oldest = await json('dead-letters', 'list', '--limit', '2');
    expect(ids(oldest.deadLetters)).toEqual(['tally/p3', 'tally/p4']);
    expect(oldest).toMatchObject({ total: 4, byCode: { RETRYABLE: 4 } });
    expect((await baton('dead-letters', 'list', '--limit', '2')).out).toMatch(
      /\ntally\/p[34] .*\ntally\/p[34] .*\nthe oldest 2 of 4 \(by code: RETRYABLE 4\): narrow with --type/,
    );
    expect((await baton('dead-letters', 'list', '--limit', '0')).err).toMatch(
      /--limit takes a whole number from 1 to 1000, not "0"/,
    );
    const bad = await baton('dead-letters', 'list', '--since', 'lately');
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--since takes an ISO 8601 time or a duration/);

    // Purge one: refused without --yes, then forgotten, never applied.
    const [p4] = (await json('dead-letters', 'list', '--type', 'tally')).deadLetters.filter(
      (l: { actor: string }) => l.actor === 'tally/p4',
    );
    expect((await baton('dead-letters', 'purge', 'tally/p4', p4.messageId)).code).toBe(2);
    const purged = await baton('dead-letters', 'purge', 'tally/p4', p4.messageId, '--yes');
    expect(purged.code, purged.err).toBe(0);
    expect(purged.out).toBe('purged 1 dead letter(s)');
    // Never redriven: its trail notes no redrive a purge would make apply nothing.
    expect(purged.err.split('\n')[0]).toBe(
      `baton: purging dead letter ${p4.messageId}. They are forgotten, never applied. A redrive sent and not yet applied by its actor's turn would apply nothing once its letter is purged: it is not noted as redriven and not applied yet (REDRIVEN in ${hint('dead-letters list')} says "not applied yet" for such a letter)`,
    );
    expect(purged.err).toMatch(/"by":"ops","action":"dead-letters purge","actor":"tally\/p4"/);
    expect((await json('dead-letters', 'list')).deadLetters).toHaveLength(3);

    // The fix ships. tally/p1's letter is a client's ask, which was told DEAD_LETTERED: redrive
    // --all leaves it, saying why, and a redrive by name is refused, nothing applied. The send's
    // is redriven, applied once.
    faults.poisoned = false;
    const plain = await json('dead-letters', 'redrive', '--all', '--since', between, '--dry-run');
    expect(ids(plain.redrive)).toEqual(['tally/p2']);
    expect(ids(plain.left)).toEqual(['tally/p1']);
    expect(plain.left[0].reason).toBe(
      "its sender was answered DEAD_LETTERED when it was kept (an actor's or a client's ask): purge it, or redrive it with --force if it must be applied still",
    );
    const [p1] = plain.left;
    const quoted = shellQuote(p1.messageId);
    // The ask said what its letter needs: it was told DEAD_LETTERED, so --force, or a purge.
    expect((await asked).err.split('\n').find((line) => line.startsWith('baton ask:'))).toBe(
      `baton ask: tally/p1 did not apply "add": its message was kept as a dead letter, the actor unchanged (cause RETRYABLE: the poison entry breaks add). This command, its asker, was told DEAD_LETTERED, so a plain redrive of it is refused. Fix the cause, then look at it: ${hint(`dead-letters show tally/p1 ${quoted}`)}; purge it if it must not run: ${hint(`dead-letters purge tally/p1 ${quoted}`)}; or, if it must be applied still, redrive it with --force: ${hint(`dead-letters redrive tally/p1 ${quoted} --force`)}`,
    );
    // list and show say so too, before any redrive is tried.
    const listed = (await json('dead-letters', 'list', '--since', between)).deadLetters;
    expect(
      Object.fromEntries(
        listed.map((l: { actor: string; needsForce: boolean }) => [l.actor, l.needsForce]),
      ),
    ).toEqual({ 'tally/p1': true, 'tally/p2': false });
    const table = (await baton('dead-letters', 'list', '--since', between)).out.split('\n');
    expect(table[0]).toMatch(/^ACTOR +NAME +CODE +ATTEMPTS +AGE +MESSAGEID +REDRIVE +ERROR$/);
    const redriveOf = (actor: string) =>
      table.find((line) => line.startsWith(`${actor} `))?.split(/ {2,}/)[6];
    expect([redriveOf('tally/p1'), redriveOf('tally/p2')]).toEqual(['--force', 'yes']);
    expect(table.at(-1)).toBe(
      `REDRIVE --force: its sender, an ask, was answered DEAD_LETTERED; a redrive applies it only with --force (or purge it): ${hint('dead-letters show <type/key> <message id>')} says who`,
    );
    const shown = await baton('dead-letters', 'show', 'tally/p1', p1.messageId);
    expect(shown.out.split('\n').find((line) => line.startsWith('redrivable'))).toBe(
      `redrivable only with --force: its sender was answered DEAD_LETTERED (below), and applied now it would change tally/p1 after that answer — ${hint(`dead-letters redrive tally/p1 ${quoted} --force`)}, or purge it`,
    );
    expect((await json('dead-letters', 'show', 'tally/p1', p1.messageId)).needsForce).toBe(true);
    // A dry run names, for the letter it leaves, the commands that act on it: each one runs.
    const preview = await baton(
      'dead-letters',
      'redrive',
      '--all',
      '--since',
      between,
      '--dry-run',
    );
    const lines = preview.out.split('\n');
    expect(lines.slice(-3)).toEqual([
      "left 1 dead letter(s) whose sender was answered DEAD_LETTERED when they were kept (an actor's ask, whose asker went on as for a failed call — a workflow failed, or its saga undid the call —, or a client's ask, which was told so): applied now, they would change their actor after that answer. For each, purge it if it must not run, or redrive it with --force if it must be applied still:",
      `  ${hint(`dead-letters purge tally/p1 ${quoted}`)}`,
      `  ${hint(`dead-letters redrive tally/p1 ${quoted} --force`)}`,
    ]);
    expect(shellWords(lines.at(-2)!)).toEqual([
      ...['baton', 'dead-letters', 'purge', 'tally/p1', p1.messageId],
      ...flagsOf(deployment.options),
    ]);
    const purgeDry = await runBaton([...shellWords(lines.at(-2)!).slice(1), '--dry-run']);
    expect(purgeDry.code, purgeDry.err).toBe(0);
    expect(purgeDry.out).toMatch(/^would purge 1 dead letter\(s\):\nACTOR +MESSAGEID\ntally\/p1 /);

    const some = await baton('dead-letters', 'redrive', '--all', '--since', between, '--yes');
    expect(some.code, some.err).toBe(0);
    expect(some.out).toMatch(
      /^redriven 1 dead letter\(s\): each is applied once, in its actor's next turn\neach stays listed in baton dead-letters list .* until its actor applies it: do not purge it meanwhile \(the redrive would then apply nothing\)\nleft 1 dead letter\(s\) whose sender was answered DEAD_LETTERED when they were kept \(an actor's ask, .* or a client's ask, which was told so\): .* redrive it with --force if it must be applied still:\n {2}baton dead-letters purge tally\/p1 /,
    );
    expect(some.err.match(/"action":"dead-letters redrive"/g)).toHaveLength(1);
    await work(async () => (await entriesOf('tally/p2')).length === 1);
    expect(await entriesOf('tally/p2')).toEqual(['poison']);
    const named = await baton('dead-letters', 'redrive', 'tally/p1', p1.messageId, '--yes');
    expect(named.code).toBe(1);
    expect(named.err).toMatch(
      /was not redriven: when it was kept, its client's ask: it was told DEAD_LETTERED, the outcome stored under its key .* redrive it with force/,
    );
    // The engine's refusal names the next commands, with the letter's id shell-quoted (an
    // ingress id holds quotes and brackets) and this run's target flags too.
    expect(named.err).toContain(
      `purge it (${hint(`dead-letters purge tally/p1 ${quoted}`)}); if you know it must be applied still, redrive it with force (${hint(`dead-letters redrive tally/p1 ${quoted} --force`)}; `,
    );
    // As pasted into a shell, the hint gives the id back whole.
    const forced = /redrive it with force \((baton dead-letters redrive .*?); /.exec(
      named.err,
    )?.[1];
    expect(shellWords(forced ?? '').slice(0, 5)).toEqual([
      'baton',
      'dead-letters',
      'redrive',
      'tally/p1',
      p1.messageId,
    ]);
    await work();
    expect(runs.get('poison')).toBe(13);
    expect(await entriesOf('tally/p1')).toEqual([]);

    // With --force, as the operator chooses: previewed, then applied once.
    const dry = await json(
      'dead-letters',
      'redrive',
      '--all',
      '--since',
      between,
      '--force',
      '--dry-run',
    );
    expect(ids(dry.redrive)).toEqual(['tally/p1']);
    expect(dry.left).toBeUndefined();
    expect((await json('dead-letters', 'list')).deadLetters).toHaveLength(2);
    const redriven = await baton(
      'dead-letters',
      'redrive',
      '--all',
      '--since',
      between,
      '--force',
      '--yes',
    );
    expect(redriven.code, redriven.err).toBe(0);
    expect(redriven.err.match(/"action":"dead-letters redrive"/g)).toHaveLength(1);
    await work(async () => (await entriesOf('tally/p1')).length === 1);
    expect(await entriesOf('tally/p1')).toEqual(['poison']);
    expect(await entriesOf('tally/p2')).toEqual(['poison']);
    expect(runs.get('poison')).toBe(14);
    expect(ids((await json('dead-letters', 'list')).deadLetters)).toEqual(['tally/p3']);

    // Purge --all: previewed, then done; nothing of it is ever applied.
    expect((await baton('dead-letters', 'purge', '--all', '--dry-run')).out).toMatch(
      /^would purge 1 dead letter\(s\):\nACTOR\s+MESSAGEID\ntally\/p3\s+'ingress:/,
    );
    expect((await json('dead-letters', 'purge', '--all', '--yes')).purge).toEqual([
      expect.objectContaining({ actor: 'tally/p3' }),
    ]);
    await work();
    expect((await json('dead-letters', 'list')).deadLetters).toEqual([]);
    expect(await entriesOf('tally/p3')).toEqual([]);
    expect(await entriesOf('tally/p4')).toEqual([]);
    expect(runs.get('poison')).toBe(14);
    expect((await baton('dead-letters', 'redrive', '--all', '--yes')).out).toBe(
      'no dead letter matches: nothing to redrive',
    );
  });

  it('lists and shows a message kept because its state would pass the record limit, with its cause', async () => {
    const entry = 'x'.repeat(150_000);
    for (let i = 0; i < 3; i++) {
      await json(
        'send',
        'note/big',
        'add',
        JSON.stringify({ entry: `${i}${entry}` }),
        '--app',
        NOTES,
      );
    }
    await work(async () => (await json('dead-letters', 'list')).deadLetters.length === 1);
    expect((await entriesOf('note/big')).map((e: string) => e[0])).toEqual(['0', '1']);
    const listed = await json('dead-letters', 'list');
    expect(listed).toMatchObject({
      total: 1,
      byCode: { STATE_TOO_LARGE: 1 },
      deadLetters: [{ actor: 'note/big', name: 'add', code: 'STATE_TOO_LARGE', redrivable: true }],
    });
    const shown = await baton('dead-letters', 'show', 'note/big', listed.deadLetters[0].messageId);
    expect(shown.out).toMatch(
      /\ncause {6}STATE_TOO_LARGE: the state of note\/big would grow past the backend's \d+-byte record limit; the state is unchanged and the message was kept as a dead letter: keep large data elsewhere or split the actor, deploy, then redrive it\nredrivable yes/,
    );
    expect((await baton('status')).out).toMatch(/1 dead letter\(s\)/);
  });

  it('lists, shows, redrives and purges no proof a redrive of an ended life’s message left', async () => {
    const id = 'tally/proof';
    const messageId = 'tally/gone:L1.3';
    const at = Date.now();
    const proof: DeadLetter = {
      actorId: id,
      messageId,
      envelope: {
        id: messageId,
        from: 'tally/gone',
        seq: 3,
        to: id,
        name: 'add',
        payload: null,
        sentAt: 0,
        lifeEnded: true,
      },
      redrivable: false,
      error: { code: 'DEAD_LETTERED', message: 'its life ended', details: {} },
      attempts: 1,
      at,
      applied: { at, expiresAt: at + 60_000 },
    };
    await deployment.store.commit({
      expectedVer: 0,
      record: { id, ver: 1, state: {}, inboxOffset: '0', marks: {}, sentSeq: 0 },
      outbox: [],
      idempotency: [],
      deadLetters: { put: [proof], remove: [] },
    });
    expect((await json('dead-letters', 'list')).deadLetters).toEqual([]);
    for (const action of ['show', 'redrive', 'purge']) {
      const run = await baton('dead-letters', action, id, messageId, '--yes');
      expect(run.code, action).toBe(1);
      expect(run.err, action).toBe(
        `baton dead-letters ${action}: ${id} keeps no dead letter ${messageId}: it was redriven, and applied at ${new Date(at).toISOString()}; nothing is left to redrive or purge`,
      );
    }
    // Another message between actors, not kept: it keeps no outcome to tell why.
    const other = await baton('dead-letters', 'purge', id, 'tally/gone:L1.4', '--yes');
    expect(other.code).toBe(1);
    expect(other.err).toBe(
      `baton dead-letters purge: ${id} keeps no dead letter tally/gone:L1.4: it was redriven or purged already, or never dead-lettered; a message between actors keeps no outcome to tell which: ${hint(`actors get ${id}`)} shows the actor's state; ${hint('dead-letters list')} shows the letters kept`,
    );
    // A client message's id pasted without its quotes is named as such, not as gone.
    const unquoted = await baton('dead-letters', 'show', id, `ingress:[${id},d1,k1]`);
    expect(unquoted.err).toMatch(
      /lost its quotes \(a shell strips them\).*'ingress:\["tally\/proof","d1","k1"\]'/,
    );
  });

  it('leaves a dead letter kept without its payload out of a bulk redrive, saying why, and refuses it by name', async () => {
    const id = 'cut/a';
    const messageId = 'ingress:cut-1';
    const letter = clientLetter(
      id,
      messageId,
      { payload: null, sentAt: 0 },
      {
        redrivable: false,
        error: { code: 'DEAD_LETTERED', message: 'too large to keep whole', details: {} },
        at: Date.now(),
      },
    );
    await deployment.store.commit({
      expectedVer: 0,
      record: { id, ver: 1, state: {}, inboxOffset: '0', marks: {}, sentSeq: 0 },
      outbox: [],
      idempotency: [],
      deadLetters: { put: [letter], remove: [] },
    });
    const bulk = await baton('dead-letters', 'redrive', '--all', '--type', 'cut', '--yes');
    expect(bulk.code).toBe(0);
    expect(bulk.out).toMatch(
      /^no dead letter that matches can be redriven\nleft 1 dead letter\(s\) kept without their payload .* send their messages again from their source, then purge them:\nACTOR +MESSAGEID\ncut\/a +ingress:cut-1$/,
    );
    expect(await json('dead-letters', 'redrive', '--all', '--type', 'cut', '--dry-run')).toEqual({
      dryRun: true,
      redrive: [],
      left: [
        {
          actor: id,
          messageId,
          reason:
            'kept without its payload (too large to keep whole): send it again from its source',
        },
      ],
    });
    expect((await json('dead-letters', 'list', '--type', 'cut')).deadLetters).toEqual([
      expect.objectContaining({ actor: id, messageId }),
    ]);
    const named = await baton('dead-letters', 'redrive', id, messageId, '--yes');
    expect(named.code).toBe(2);
    expect(named.err).toMatch(/cannot be redriven: send its message again from its source/);
  });

  /** Keeps `letters` (and `timers`) at `id`, an actor whose record a first message made. */
  async function keep(id: string, letters: DeadLetter[], timers: Timer[] = []) {
    await json('send', id, 'add', '{"entry":"first"}', '--app', NOTES);
    await work();
    const record = await deployment.store.load(id);
    await deployment.store.commit({
      expectedVer: record!.ver,
      record: { ...record!, ver: record!.ver + 1 },
      outbox: [],
      idempotency: [],
      deadLetters: { put: letters, remove: [] },
      ...(timers.length > 0 ? { timers: { put: timers, remove: [] } } : {}),
    });
  }

  it('shows why a letter of a forgotten gap was kept: its mark forgot the channel’s gaps', async () => {
    // As the engine keeps a message that lies where its receiver's mark forgot the gaps.
    const id = 'note/gaps';
    const messageId = 'note/busy:L1.7';
    const letter: DeadLetter = {
      actorId: id,
      messageId,
      envelope: {
        id: messageId,
        from: 'note/busy',
        seq: 7,
        prev: 6,
        to: id,
        name: 'add',
        payload: { entry: 'late' },
        sentAt: Date.now(),
      },
      redrivable: true,
      error: {
        code: 'DEAD_LETTERED',
        message: `message ${messageId} to ${id} lies where its channel's gaps were forgotten: it may have been applied already, so it is kept as a dead letter: redrive it only if you know it was never applied`,
        details: { messageId, actorId: id, forgottenGaps: true },
      },
      attempts: 1,
      at: Date.now(),
      unmarked: true,
    };
    await keep(id, [letter]);
    const shown = (await baton('dead-letters', 'show', id, messageId)).out.split('\n');
    expect(shown.find((line) => line.startsWith('too old'))).toMatch(
      /^too old {4}it lies where note\/gaps's mark on note\/busy forgot the gaps of their channel \(more of its messages went missing than a mark holds\), so no mark tells whether it was applied: a redrive needs --force/,
    );
    expect(shown.find((line) => line.startsWith('redrivable'))).toMatch(
      /^redrivable only with --force/,
    );
  });

  it('leaves a dead letter kept as too old to tell out of a bulk redrive, marks and shows why, and redrives it only with --force', async () => {
    // A message of a sender's life that ended, kept as too old to tell (as the engine keeps
    // one), beside a plain send's dead letter.
    const id = 'note/old';
    const messageId = 'note/gone:L1.3';
    const sentAt = Date.now() - 40 * 86_400_000;
    const old: DeadLetter = {
      actorId: id,
      messageId,
      envelope: {
        id: messageId,
        from: 'note/gone',
        seq: 3,
        to: id,
        name: 'add',
        payload: { entry: 'late' },
        sentAt,
        lifeEnded: true,
      },
      redrivable: true,
      error: {
        code: 'DEAD_LETTERED',
        message: 'kept as too old to tell',
        details: {
          cause: {
            code: 'DEAD_LETTERED',
            message: `message ${messageId} to ${id} was committed 40 days ago by a life of note/gone that has ended (its record expired while the message waited): it may have been applied already, so it is kept as a dead letter: redrive it only if you know it was never applied`,
          },
        },
      },
      attempts: 1,
      at: Date.now(),
      unmarked: true,
    };
    await keep(id, [old]);
    noteFaults.poisoned = true;
    await json('send', 'note/plain', 'add', '{"entry":"poison"}', '--app', NOTES);
    await work(async () => (await json('dead-letters', 'list')).deadLetters.length === 2);
    noteFaults.poisoned = false;
    const quoted = shellQuote(messageId);

    // list marks it --force, and says why once: JSON keeps needsForce, and adds the reason.
    const listed = (await json('dead-letters', 'list')).deadLetters;
    const byActor = Object.fromEntries(listed.map((l: { actor: string }) => [l.actor, l]));
    expect(byActor[id]).toMatchObject({ needsForce: true, forceBecause: 'tooOldToTell' });
    expect(byActor['note/plain'].needsForce).toBe(false);
    expect(byActor['note/plain']).not.toHaveProperty('forceBecause');
    const table = (await baton('dead-letters', 'list')).out.split('\n');
    const redriveOf = (actor: string) =>
      table.find((line) => line.startsWith(`${actor} `))?.split(/ {2,}/)[6];
    expect([redriveOf(id), redriveOf('note/plain')]).toEqual(['--force', 'yes']);
    expect(table.at(-1)).toBe(
      `REDRIVE --force: kept as too old to tell whether it was applied (it may have been already); redrive it with --force only if you know it was never applied, else purge it: ${hint('dead-letters show <type/key> <message id>')} says why`,
    );
    // show says why a redrive needs --force, and what to check before using it.
    const shown = (await baton('dead-letters', 'show', id, messageId)).out.split('\n');
    expect(shown.find((line) => line.startsWith('redrivable'))).toBe(
      `redrivable only with --force: it was kept as too old to tell whether it was applied (below), and applied now it may be applied twice — ${hint(`dead-letters redrive ${id} ${quoted} --force`)} only if you know it was never applied, else purge it (${hint(`dead-letters purge ${id} ${quoted}`)})`,
    );
    expect(shown.find((line) => line.startsWith('too old'))).toBe(
      `too old    it was sent by a life of note/gone that had ended (its record expired while the message waited in its outbox), so no mark tells whether it was applied: a redrive needs --force, which may apply it twice. Before you use it, check that it was never applied: ${id}'s state does not show its effect (${hint(`actors get ${id}`)}). If you cannot tell, purge it`,
    );
    expect(shown.some((line) => line.startsWith('answered'))).toBe(false);

    // redrive --all leaves it, dry run or not, with the commands for it; the send is redriven.
    const reason =
      'kept as too old to tell whether it was applied (it may have been already): redrive it with --force only if you know it was never applied, else purge it';
    const dry = await json('dead-letters', 'redrive', '--all', '--dry-run');
    expect(dry.redrive).toEqual([expect.objectContaining({ actor: 'note/plain' })]);
    expect(dry.left).toEqual([{ actor: id, messageId, reason }]);
    const leftLines = [
      `left 1 dead letter(s) kept as too old to tell whether they were applied (each came after what proves a message applied was gone — its sender's mark, or its outcome —, or where its sender's mark had forgotten its channel's gaps, or from a sender's life that had ended, or after its client key's claim lapsed): each may have been applied already, and a redrive would then apply it twice. For each, purge it, unless you know it was never applied (its effect is not in its actor's state: ${hint('actors get <type/key>')}); only then redrive it with --force:`,
      `  ${hint(`dead-letters purge ${id} ${quoted}`)}`,
      `  ${hint(`dead-letters redrive ${id} ${quoted} --force`)}`,
    ];
    expect(
      (await baton('dead-letters', 'redrive', '--all', '--dry-run')).out.split('\n').slice(-3),
    ).toEqual(leftLines);
    const some = await baton('dead-letters', 'redrive', '--all', '--yes');
    expect(some.code, some.err).toBe(0);
    expect(some.out).toMatch(/^redriven 1 dead letter\(s\): each is applied once/);
    expect(some.out.split('\n').slice(-3)).toEqual(leftLines);
    expect(some.err.match(/"action":"dead-letters redrive"/g)).toHaveLength(1);
    await work(async () => (await entriesOf('note/plain')).length === 1);
    // Alone, it leaves nothing to redrive without --force.
    const none = await baton('dead-letters', 'redrive', '--all', '--type', 'note', '--yes');
    expect(none.out.split('\n')[0]).toBe(
      'no dead letter that matches can be redriven without --force',
    );

    // By name, the engine refuses it, saying why and what to run.
    const named = await baton('dead-letters', 'redrive', id, messageId, '--yes');
    expect(named.code).toBe(1);
    expect(named.err).toContain(
      `was not redriven: it is too old to tell whether it was applied (it came after what proves a message applied was gone — its sender's mark, or its outcome —, or where its sender's mark had forgotten its channel's gaps, or the claim of its client's key has lapsed since, so a message sent under that key again was taken as new), so applied now it may be applied twice. If you know it was never applied, redrive it with force (${hint(`dead-letters redrive ${id} ${quoted} --force`)}; `,
    );
    const refused = await baton('dead-letters', 'redrive', id, messageId, '--yes', '--json');
    expect(refused.json().error).toMatchObject({
      code: 'INVALID_STATE',
      details: { actorId: id, messageId, tooOldToTell: true },
    });
    await work();
    expect(await entriesOf(id)).toEqual(['first']);

    // --all --force takes it, and says so before it acts; applied once, it leaves the list.
    const forcedDry = await json('dead-letters', 'redrive', '--all', '--force', '--dry-run');
    expect(forcedDry.redrive).toEqual([{ actor: id, messageId }]);
    expect(forcedDry.left).toBeUndefined();
    const unconfirmed = await baton('dead-letters', 'redrive', '--all', '--force');
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.err).toContain(
      `redrive dead letter ${messageId}? With --force it takes 1 kept as too old to tell whether it was applied (applied already, it would be applied twice): redrive each only if you know it must be applied — refused without a terminal to ask`,
    );
    const forced = await baton('dead-letters', 'redrive', id, messageId, '--force', '--yes');
    expect(forced.code, forced.err).toBe(0);
    expect(forced.err).toContain(
      `baton: redriving dead letter ${messageId}. With --force it takes 1 kept as too old to tell whether it was applied`,
    );
    await work(async () => (await entriesOf(id)).length === 2);
    expect(await entriesOf(id)).toEqual(['first', 'late']);
    expect((await json('dead-letters', 'list')).deadLetters).toEqual([]);
  });

  it('marks, shows and leaves out of a bulk redrive a dead letter kept in a life of its actor that has ended, and counts it in --force’s question', async () => {
    // Kept (as the engine keeps a letter) in a life of note/closed that has ended: the record
    // the note holds now is another life's.
    const id = 'note/closed';
    const messageId = 'ingress:ended-life-1';
    const letter = clientLetter(id, messageId, {}, { life: 'a-life-that-ended' });
    await keep(id, [letter]);
    const quoted = shellQuote(messageId);
    expect((await deployment.store.load(id))?.life).not.toBe(letter.life);

    const [listed] = (await json('dead-letters', 'list')).deadLetters;
    expect(listed).toMatchObject({ actor: id, needsForce: true, forceBecause: 'lifeEnded' });
    expect((await baton('dead-letters', 'list')).out.split('\n').at(-1)).toBe(
      "REDRIVE --force: kept in a life of its actor that has ended since (it halted, or never applied a message and its record expired); applied now, it would change the actor's new life: purge it, or redrive it with --force if the new life must take it",
    );
    const shown = (await baton('dead-letters', 'show', id, messageId)).out.split('\n');
    expect(shown.find((line) => line.startsWith('redrivable'))).toBe(
      `redrivable only with --force: it was kept in a life of ${id} that has ended since (it halted, or never applied a message and its record expired), and applied now it would change the actor's new life — purge it (${hint(`dead-letters purge ${id} ${quoted}`)}), or ${hint(`dead-letters redrive ${id} ${quoted} --force`)} if the new life must take it`,
    );

    const left = await json('dead-letters', 'redrive', '--all', '--yes');
    expect(left.redrive).toEqual([]);
    expect(left.left).toEqual([
      expect.objectContaining({
        actor: id,
        messageId,
        reason: expect.stringMatching(/^kept in a life of its actor that has ended since/),
      }),
    ]);
    const unconfirmed = await baton('dead-letters', 'redrive', '--all', '--force');
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.err).toContain(
      `redrive dead letter ${messageId}? With --force it takes 1 kept in a life of its actor that has ended since (it would change the actor's new life): redrive each only if you know it must be applied — refused without a terminal to ask`,
    );
    await work();
    expect(await entriesOf(id)).toEqual(['first']);
    const forced = await baton('dead-letters', 'redrive', '--all', '--force', '--yes');
    expect(forced.code, forced.err).toBe(0);
    await work(async () => (await entriesOf(id)).length === 2);
    expect(await entriesOf(id)).toEqual(['first', 'late']);
  });

  it('marks and shows a client’s dead letter whose key’s claim has lapsed as too old to tell, and refuses its plain redrive', async () => {
    // Kept (as the engine keeps a keyed send's letter) 30 days ago: its key's claim lapsed at 28.
    const id = 'note/lapsed';
    const messageId = `ingress:["${id}","k-1"]`;
    const sentAt = Date.now() - 30 * 86_400_000;
    const keyHeldUntil = sentAt + 28 * 86_400_000;
    const letter = clientLetter(id, messageId, { sentAt, keyHeldUntil });
    await keep(id, [letter]);
    const quoted = shellQuote(messageId);
    const [listed] = (await json('dead-letters', 'list')).deadLetters;
    expect(listed).toMatchObject({ actor: id, needsForce: true, forceBecause: 'tooOldToTell' });
    const shown = (await baton('dead-letters', 'show', id, messageId)).out.split('\n');
    expect(shown.find((line) => line.startsWith('too old'))).toBe(
      `too old    the claim of its client's key lapsed at ${new Date(keyHeldUntil).toISOString()}: a message sent under that key since was taken as a new one, under this one's id, and may be this one sent again, applied: a redrive needs --force, which may apply it twice. Before you use it, check that it was never applied: ${id}'s state does not show its effect (${hint(`actors get ${id}`)}). If you cannot tell, purge it`,
    );
    const named = await baton('dead-letters', 'redrive', id, messageId, '--yes', '--json');
    expect(named.code).toBe(1);
    expect(named.json().error).toMatchObject({
      code: 'INVALID_STATE',
      details: { tooOldToTell: true },
    });
    expect(named.json().error.message).toContain(
      `or the claim of its client's key has lapsed since, so a message sent under that key again was taken as new), so applied now it may be applied twice. If you know it was never applied, redrive it with force (${hint(`dead-letters redrive ${id} ${quoted} --force`)}`,
    );
  });

  it('refuses to purge the letter of an ask’s timeout, leaves it out of purge --all, and says a purged reply’s ask times out', async () => {
    const id = 'note/asker';
    const at = Date.now();
    const due = at + 3_600_000;
    // An ask's timeout whose fire was dead-lettered, and another ask's reply: each letter holds
    // its ask's timeout timer, as the engine keeps them.
    const timer = (ask: string): Timer => ({
      actorId: id,
      id: `ask:${ask}`,
      gen: ask,
      at: due,
      name: 'ring',
      payload: { ok: false, error: { code: 'ASK_TIMEOUT', message: 'no reply' }, context: null },
      createdAt: at,
      deadLettered: true,
    });
    const failed = {
      error: { code: 'DEAD_LETTERED', message: 'its continuation failed', details: {} },
      attempts: 3,
      at,
      redrivable: true,
    } as const;
    const timeoutId = timerMessageId(id, 'ask:a1', 'a1');
    const timeout: DeadLetter = {
      actorId: id,
      messageId: timeoutId,
      envelope: {
        id: timeoutId,
        from: id,
        seq: 0,
        to: id,
        name: 'ring',
        payload: null,
        sentAt: at,
        timer: { id: 'ask:a1', gen: 'a1' },
      },
      timer: { id: 'ask:a1', gen: 'a1' },
      ...failed,
    };
    const replyId = 'note/answerer:4';
    const reply: DeadLetter = {
      actorId: id,
      messageId: replyId,
      envelope: {
        id: replyId,
        from: 'note/answerer',
        seq: 4,
        to: id,
        // The reply's name (`ASK_REPLY`).
        name: '$reply',
        payload: { ok: true, value: null },
        sentAt: at,
        replyTo: 'a2',
      },
      timer: { id: 'ask:a2', gen: 'a2' },
      ...failed,
    };
    await keep(id, [timeout, reply], [timer('a1'), timer('a2')]);
    const quoted = shellQuote(timeoutId);

    // By name, the engine refuses it, asked or not: nothing to confirm, nothing purged.
    for (const yes of [[], ['--yes']]) {
      const refused = await baton('dead-letters', 'purge', id, timeoutId, ...yes);
      expect(refused.code).toBe(2);
      expect(refused.err).toBe(
        `baton dead-letters purge: dead letter ${timeoutId} of ${id} is the timeout of an ask of ${id}'s: it holds the asker's continuation, and purged, ${id} would wait for good (a reply that comes later is dropped as late). It was not purged. Fix what made the continuation fail, deploy, then redrive it (${hint(`dead-letters redrive ${id} ${quoted}`)}): the continuation runs once, with ASK_TIMEOUT`,
      );
    }
    expect((await deployment.store.readTimer(id, 'ask:a1'))?.deadLettered).toBe(true);

    // purge --all leaves it, with its redrive command; it says what the reply's purge does.
    const reason =
      "the timeout of an ask, which holds its asker's continuation: purged, the asker would wait for good; redrive it instead (the continuation runs once, with ASK_TIMEOUT)";
    expect(await json('dead-letters', 'purge', '--all', '--type', 'note', '--dry-run')).toEqual({
      dryRun: true,
      purge: [{ actor: id, messageId: replyId }],
      left: [{ actor: id, messageId: timeoutId, reason }],
    });
    const preview = await baton('dead-letters', 'purge', '--all', '--type', 'note', '--dry-run');
    expect(preview.out.split('\n').slice(-4)).toEqual([
      `${id}  ${replyId}`,
      "One is the reply to an ask that still waits for it: purged, the ask's timeout is left to fire, and its continuation runs once, with ASK_TIMEOUT",
      `left 1 dead letter(s) of an ask's timeout, each holding its asker's continuation: purged, the asker would wait for good (a reply that comes later is dropped as late). Fix what made the continuation fail, deploy, then redrive each (the continuation runs once, with ASK_TIMEOUT):`,
      `  ${hint(`dead-letters redrive ${id} ${quoted}`)}`,
    ]);
    const purged = await baton('dead-letters', 'purge', '--all', '--type', 'note', '--yes');
    expect(purged.code, purged.err).toBe(0);
    expect(purged.out.split('\n')[0]).toBe(
      "purged 1 dead letter(s); 1 of them the reply to an ask that waited for it: its timeout now fires when due, and the ask's continuation runs once, with ASK_TIMEOUT",
    );
    expect(purged.err).toContain(
      "One is the reply to an ask that still waits for it: purged, the ask's timeout is left to fire, and its continuation runs once, with ASK_TIMEOUT",
    );
    expect(purged.err.match(/"action":"dead-letters purge"/g)).toHaveLength(1);
    // The reply's letter gone, its ask's timeout is left to fire; the other ask's is held still.
    expect((await deployment.store.readTimer(id, 'ask:a2'))?.deadLettered).toBeUndefined();
    expect((await deployment.store.readTimer(id, 'ask:a1'))?.deadLettered).toBe(true);
    expect((await json('dead-letters', 'list')).deadLetters).toEqual([
      expect.objectContaining({ actor: id, messageId: timeoutId }),
    ]);
    // Alone, nothing that matches can be purged.
    expect((await baton('dead-letters', 'purge', '--all', '--yes')).out.split('\n')[0]).toBe(
      'no dead letter that matches can be purged',
    );
  });

  it('says which Baton wrote a record, and flags one a newer Baton wrote', async () => {
    await json('send', 'note/f', 'add', '{"entry":"x"}', '--app', NOTES);
    await work();
    // Format 2: its outcomes in pages (3 marks only a record whose mark forgot gaps).
    expect(await json('actors', 'get', 'note/f')).toMatchObject({ recordFormat: 2 });
    const newer = { id: 'note/newer', ver: 1, state: {}, inboxOffset: '0', marks: {}, sentSeq: 0 };
    await deployment.store.commit({
      expectedVer: 0,
      record: { ...newer, format: RECORD_FORMAT + 1 },
      outbox: [],
      idempotency: [],
    });
    expect((await baton('actors', 'get', 'note/newer')).out).toMatch(
      new RegExp(
        `record format\\s+${RECORD_FORMAT + 1}: written by a newer Baton than this CLI's \\(${RECORD_FORMAT}\\); a worker of an older Baton refuses it, and its messages go to the inbox's dead-letter queue`,
      ),
    );
  });

  it('checks an actor’s stored state against the app given with --app', async () => {
    await json('send', 'note/s', 'add', '{"entry":"x"}', '--app', NOTES);
    await work();
    expect(await json('actors', 'get', 'note/s', '--app', NOTES)).toMatchObject({
      stateValid: true,
      state: { entries: ['x'] },
    });
    expect((await baton('actors', 'get', 'note/s', '--app', NOTES)).out).toMatch(
      /state valid\s+yes/,
    );
    expect((await json('actors', 'get', 'note/s', '--app', TALLY)).stateValid).toBe(
      'the app defines no actor type note',
    );
    // A deploy that changed the schema without raising the version: each field that breaks it.
    const tagged = join(import.meta.dirname, 'fixtures', 'notesTaggedApp.ts');
    expect((await json('actors', 'get', 'note/s', '--app', tagged)).stateValid).toBe(
      'state.tags: Invalid input: expected array, received undefined',
    );
    expect(await json('actors', 'get', 'note/s')).not.toHaveProperty('stateValid');
  });

  it('refuses an option a command does not take, so a --dry-run never acts for real', async () => {
    await json('send', 'note/d', 'add', '{"entry":"x"}', '--app', NOTES);
    await work();
    for (const argv of [
      ['actors', 'pause', 'note/d', '--yes', '--dry-run'],
      ['actors', 'resume', 'note/d', '--dry-run'],
      ['timers', 'cancel', 'note/d', 't-1', '--yes', '--dry-run'],
    ]) {
      const refused = await baton(...argv);
      expect(refused.code).toBe(2);
      expect(refused.err).toMatch(
        new RegExp(
          `baton ${argv[0]} ${argv[1]}: it takes no --dry-run \\(its own options: [^)]*\\); nothing was done`,
        ),
      );
    }
    expect((await json('actors', 'get', 'note/d')).paused).toBeNull();
    // A bulk action does not pretend to take --limit: it would act on every letter picked.
    const limited = await baton('dead-letters', 'purge', '--all', '--limit', '1', '--yes');
    expect(limited.code).toBe(2);
    expect(limited.err).toMatch(/it takes no --limit/);
    expect((await baton('timers', 'list', 'note/d', '--limit', '3')).err).toMatch(
      /it takes no --limit \(its own options: none\)/,
    );
    // An operand it does not take, too: two ids to purge purge neither.
    faults.poisoned = true;
    await json('send', 'tally/s', 'add', '{"entry":"poison"}', '--app', TALLY);
    await work(async () => (await json('dead-letters', 'list')).total === 1);
    const [letter] = (await json('dead-letters', 'list')).deadLetters;
    const both = await baton(
      'dead-letters',
      'purge',
      'tally/s',
      letter.messageId,
      'other',
      '--yes',
    );
    expect(both.code).toBe(2);
    expect(both.err).toMatch(/too many arguments: .* "other" is left over/);
    expect((await json('dead-letters', 'list')).total).toBe(1);
  });

  it('refuses an inbox URL that names no inbox before anything is done: a queue that does not exist, or the dead-letter queue', async () => {
    await json('send', 'note/q', 'add', '{"entry":"x"}', '--app', NOTES);
    await work();
    const { options } = deployment;
    const inbox = options['queue-url']!;
    const dlq = options['dead-letter-queue-url']!;
    // The inbox given by hand, as --table and --queue-url alone name a deployment.
    const { 'dead-letter-queue-url': _, ...named } = options;
    const as = (url: string, ...argv: string[]) =>
      runBaton([...argv, ...flagsOf({ ...named, 'queue-url': url }), '--operator', 'ops']);
    const typo = await as(
      inbox.replace(/\.fifo$/, '-typo.fifo'),
      'actors',
      'pause',
      'note/q',
      '--yes',
    );
    expect(typo.code).toBe(2);
    expect(typo.err).toMatch(
      /the inbox queue \S+-typo\.fifo does not exist \(.*\); check --queue-url .* nothing was done/,
    );
    expect(typo.err).not.toMatch(/baton audit/);
    expect((await json('actors', 'get', 'note/q')).paused).toBeNull();
    for (const argv of [
      ['actors', 'pause', 'note/q', '--yes'],
      ['send', 'note/q', 'add', '{"entry":"y"}', '--app', NOTES],
    ]) {
      const swapped = await as(dlq, ...argv);
      expect(swapped.code).toBe(2);
      expect(swapped.err).toContain(
        `the inbox queue ${dlq} is the dead-letter queue of ${inbox}, not an inbox: a message sent to it is never applied (the inbox is --queue-url ${inbox})`,
      );
    }
    expect((await json('actors', 'get', 'note/q')).paused).toBeNull();
    expect((await json('queue-dead-letters', 'list')).total).toBe(0);

    // SQS out of reach after the check (its sends dropped): the record is paused, its wake-up
    // not sent. Audited, and said; run again, the pause sends its wake-up.
    const dropping = await unansweringProxy(options['sqs-endpoint']!, (operation) =>
      /SendMessage/.test(operation) ? 'drop' : 'pass',
    );
    const unreachable = { ...options, 'sqs-endpoint': dropping.endpoint };
    const half = await runBaton([
      ...['actors', 'pause', 'note/q', '--yes'],
      ...flagsOf(unreachable),
      ...['--operator', 'ops'],
    ]).finally(() => dropping.close());
    expect(half.code).toBe(1);
    expect(half.err).toMatch(
      /baton audit .*"action":"actors pause","actor":"note\/q","wakeUp":"failed"/,
    );
    expect(half.err).toContain('note/q is paused, but the command failed after pausing it (');
    expect((await json('actors', 'get', 'note/q')).paused).toMatchObject({ by: 'ops' });
    expect((await baton('actors', 'pause', 'note/q', '--yes')).out).toMatch(/was paused already/);
  });

  it('says what dead letters there are when a filter matches none, and refuses an actor id as --type', async () => {
    await json('send', 'tally/t', 'add', '{"entry":"poison"}', '--app', TALLY);
    await work(async () => (await json('dead-letters', 'list')).total === 1);
    const { code } = (await json('dead-letters', 'list')).deadLetters[0];
    const typo = await baton(
      'dead-letters',
      'redrive',
      '--all',
      '--code',
      'UNKNOWN_MESAGE',
      '--yes',
    );
    expect(typo.code).toBe(0);
    expect(typo.out).toBe('no dead letter matches: nothing to redrive');
    expect(typo.err).toContain(
      `none of the 1 dead letter(s) kept matches the filters; by code: ${code} 1`,
    );
    const id = await baton('dead-letters', 'list', '--type', 'tally/t');
    expect(id.code).toBe(2);
    expect(id.err).toMatch(/--type takes an actor type \(tally\), not an actor id/);
    expect((await json('dead-letters', 'list')).total).toBe(1);
  });

  it('resumes only a paused actor, once confirmed, and refuses to pause an id of no record or of a type the app lacks, unless --force', async () => {
    await json('send', 'note/p', 'add', '{"entry":"x"}', '--app', NOTES);
    await work();
    const idle = await baton('actors', 'resume', 'note/p');
    expect(idle.code).toBe(1);
    expect(idle.err).toMatch(/note\/p is not paused: nothing to resume/);
    // An id with no record: as likely a typo, said as dead-letters show says it.
    const never = await baton('actors', 'resume', 'note/never');
    expect(never.code).toBe(1);
    expect(never.err).toBe(
      `baton actors resume: note/never has no record, and holds nothing to resume: it never committed a turn, or its record expired — check the actor id (a typo?): ${hint('actors list note')} lists the type's actors`,
    );
    // Paused with nothing parked: resumed, with no count of parked messages to apply.
    expect((await baton('actors', 'pause', 'note/p', '--yes')).code).toBe(0);
    const none = await baton('actors', 'resume', 'note/p', '--yes');
    expect(none.code, none.err).toBe(0);
    expect(none.out).toBe('note/p resumed; it applies its messages again, as they come');

    // An id with no record: as likely a typo, so refused before it asks, nothing paused.
    const force =
      'To pause it all the same (to hold the messages about to come to an actor before its first turn), pass --force';
    const typo = await baton('actors', 'pause', 'note/q');
    expect(typo.code).toBe(2);
    expect(typo.err).toBe(
      `baton actors pause: note/q has no record: it never committed a turn, or its record expired (halted, or never changed by a message), and is as likely a typo of the actor id — ${hint('actors list note')} lists the type's actors; --app <entry> checks its type against the app. Nothing was changed. ${force}`,
    );
    expect(await deployment.store.load('note/q')).toBeUndefined();
    // With --app, a type the app does not define is refused with the nearest, as a misspelt
    // command or event is; --json prints the refusal, what was typed and what was meant.
    const misspelt = await baton('actors', 'pause', 'ntoe/p', '--app', NOTES, '--yes', '--json');
    expect(misspelt.code).toBe(2);
    expect(misspelt.err).toBe(
      `baton actors pause: the app defines no actor type "ntoe" (it has note). Nothing was changed. Did you mean ${hint('actors pause note/p')}? ${force}`,
    );
    expect(misspelt.json().error).toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: { actorId: 'ntoe/p', hasRecord: false, knownTypes: ['note'], nearType: 'note' },
    });
    expect((await json('actors', 'get', 'note/p')).paused).toBeNull();
    // Forced, an actor is paused before its first turn, and said to have had no record.
    const forced = await baton('actors', 'pause', 'note/q', '--yes', '--force');
    expect(forced.code, forced.err).toBe(0);
    expect(forced.out).toMatch(
      /note\/q paused by ops\nnote: note\/q had no record: it never committed a turn/,
    );
    expect((await deployment.store.load('note/q'))?.paused).toMatchObject({ by: 'ops' });
    expect((await baton('actors', 'pause', 'note/p', '--yes')).out).toBe('note/p paused by ops');
    await json('send', 'note/p', 'add', '{"entry":"parked"}', '--app', NOTES);
    await work();
    // Resuming applies what was parked: asked first, as pausing is; refused without a terminal.
    const unconfirmed = await baton('actors', 'resume', 'note/p');
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.err).toBe(
      'baton actors resume: resume note/p? It applies the 1 message(s) parked meanwhile first, in order — refused without a terminal to ask: pass --yes to confirm',
    );
    await work();
    expect(await json('actors', 'get', 'note/p')).toMatchObject({
      paused: { by: 'ops' },
      parkedMessages: 1,
    });
    expect(await entriesOf('note/p')).toEqual(['x']);
    // A resume whose record write went through but whose wake was lost: not paused, a message
    // parked. Resumed again, it is woken, and the parked message applied.
    const record = (await deployment.store.load('note/p'))!;
    const { paused: _, ...resumed } = record;
    const next = { ...resumed, ver: record.ver + 1 };
    await deployment.store.commit({
      expectedVer: record.ver,
      record: next,
      outbox: [],
      idempotency: [],
    });
    expect((await baton('actors', 'resume', 'note/p', '--yes')).code).toBe(0);
    await work(async () => (await entriesOf('note/p')).includes('parked'));
    expect(await entriesOf('note/p')).toEqual(['x', 'parked']);
  });

  it('says of a dead-lettered message’s outcome whether its dead letter is kept, or was purged and never will be applied', async () => {
    const { messageId } = await json(
      'send',
      'tally/o',
      'add',
      '{"entry":"poison"}',
      '--app',
      TALLY,
    );
    await work(async () => (await json('dead-letters', 'list')).deadLetters.length === 1);

    const kept = await baton('outcome', messageId);
    expect(kept.code, kept.err).toBe(0);
    expect(kept.out).toMatch(/^failed DEAD_LETTERED: .*kept as a dead letter/);
    expect(kept.out.split('\n').at(-1)).toBe(
      `its dead letter is kept (cause RETRYABLE: the poison entry breaks add): ${hint(`dead-letters show tally/o '${messageId}'`)}`,
    );
    expect((await json('outcome', messageId)).deadLetter).toBe('kept');

    expect((await baton('dead-letters', 'purge', 'tally/o', messageId, '--yes')).code).toBe(0);
    // The error the outcome keeps still says to redrive it; the outcome now says it cannot be.
    // Its stored error's advice (fix the cause, redrive it) is no longer printed: only its cause.
    const purged = await baton('outcome', messageId);
    expect(purged.code, purged.err).toBe(0);
    expect(purged.out).toBe(
      'failed DEAD_LETTERED (its cause: RETRYABLE)\nits dead letter is no longer kept: it was purged, never applied, and no redrive can apply it (--json has the error as it was stored)',
    );
    expect((await json('outcome', messageId)).outcome.error.message).toMatch(/then redrive it$/);
    expect((await json('outcome', messageId)).deadLetter).toBe('purged');
    // A redrive or a purge of it again is refused, naming the command that tells why.
    for (const action of ['redrive', 'purge']) {
      const gone = await baton('dead-letters', action, 'tally/o', messageId, '--yes');
      expect(gone.code, action).toBe(1);
      expect(gone.err, action).toBe(
        `baton dead-letters ${action}: tally/o keeps no dead letter ${messageId}: it was redriven or purged already, or never dead-lettered; ${hint(`outcome '${messageId}'`)} tells which: the outcome a redrive applied, or DEAD_LETTERED with its letter purged; ${hint('dead-letters list')} shows the letters kept`,
      );
    }
    expect(runs.get('poison')).toBe(3);
  });

  it('gives the operator the cause a caller of a dead-lettered message was not shown', async () => {
    let settled = false;
    const asked = baton('ask', 'tally/c', 'add', '{"entry":"crash"}', '--app', TALLY);
    void asked.finally(() => (settled = true));
    await work(async () => settled);
    const told = (await asked).err.split('\n').find((line) => line.startsWith('baton ask:'));
    expect(told).toMatch(/\(cause RETRYABLE: unexpected error: add crashed on db:\/\/internal\)/);

    const [letter] = (await json('dead-letters', 'list')).deadLetters;
    const stored = await json('outcome', letter.messageId);
    expect(stored.outcome.error.details.cause.message).toBe(
      "an unexpected error; its text is in the server's log",
    );
    expect((await json('outcome', letter.messageId)).deadLetterCause).toEqual({
      code: 'RETRYABLE',
      message: 'unexpected error: add crashed on db://internal',
    });
    const shown = await baton('outcome', letter.messageId);
    expect(shown.out.split('\n').at(-1)).toBe(
      `its dead letter is kept (cause RETRYABLE: unexpected error: add crashed on db://internal): ${hint(`dead-letters show tally/c ${shellQuote(letter.messageId)}`)}`,
    );
  });

  it('quotes in its hints an actor id whose key holds shell characters: pasted, each runs on that actor', async () => {
    const id = `tally/it's a $(x); "y"`;
    const { messageId } = await json('send', id, 'add', '{"entry":"poison"}', '--app', TALLY);
    await work(async () => (await json('dead-letters', 'list')).deadLetters.length === 1);
    const flags = flagsOf(deployment.options);

    const kept = (await baton('outcome', messageId)).out.split('\n').at(-1)!;
    const keptLine = 'its dead letter is kept (cause RETRYABLE: the poison entry breaks add): ';
    expect(kept.startsWith(`${keptLine}baton dead-letters show 'tally/it'\\''s a `), kept).toBe(
      true,
    );
    const show = shellWords(kept.slice(keptLine.length));
    expect(show).toEqual(['baton', 'dead-letters', 'show', id, messageId, ...flags]);
    // Pasted as printed, it shows that very letter.
    const shown = await runBaton(show.slice(1));
    expect(shown.code, shown.err).toBe(0);
    expect(shown.out).toContain(`actor      ${id}\nmessage    ${messageId}\n`);

    const resume = await baton('actors', 'resume', id);
    expect(resume.code).toBe(1);
    const get = /nothing to resume \((baton .*) shows its state\)$/.exec(resume.err)?.[1];
    expect(shellWords(get ?? '')).toEqual(['baton', 'actors', 'get', id, ...flags]);
  });

  it('warns, before a purge, that it cancels a redrive sent and not yet applied, which then applies nothing, and leaves such a letter out of purge --all', async () => {
    const { messageId } = await json(
      'send',
      'tally/r',
      'add',
      '{"entry":"poison"}',
      '--app',
      TALLY,
    );
    await work(async () => (await json('dead-letters', 'list')).deadLetters.length === 1);
    faults.poisoned = false;
    // Redriven, but no turn has run since: the letter is kept and listed as before, as the
    // redrive says, with not to purge it meanwhile.
    const redriven = await baton('dead-letters', 'redrive', 'tally/r', messageId, '--yes');
    expect(redriven.code, redriven.err).toBe(0);
    expect(redriven.out).toBe(
      `redriven 1 dead letter(s): each is applied once, in its actor's next turn\neach stays listed in ${hint('dead-letters list')} until its actor applies it: do not purge it meanwhile (the redrive would then apply nothing)`,
    );
    expect((await json('dead-letters', 'list')).deadLetters).toEqual([
      expect.objectContaining({ actor: 'tally/r', messageId }),
    ]);

    // The letter's trail tells its redrive not applied yet: purge --all leaves it, saying why.
    const { at } = (await json('dead-letters', 'list')).deadLetters[0].lastRedrive;
    const bulk = await baton('dead-letters', 'purge', '--all', '--yes');
    expect(bulk.code, bulk.err).toBe(0);
    expect(bulk.out.split('\n').slice(0, 3)).toEqual([
      'no dead letter that matches can be purged without --include-pending',
      `left 1 dead letter(s) whose last redrive is not applied yet (REDRIVEN says "not applied yet" in ${hint('dead-letters list')}): purged now, that redrive would apply nothing. Wait for their actors' turns (a letter applied leaves the list; one that fails again is kept again, REDRIVEN "kept again"), or add --include-pending to purge them all the same:`,
      expect.stringMatching(/^ACTOR +MESSAGEID$/),
    ]);
    expect(bulk.err).not.toMatch(/baton audit/);
    const dry = await baton('dead-letters', 'purge', '--all', '--include-pending', '--dry-run');
    expect(dry.out).toMatch(/^would purge 1 dead letter\(s\):\nACTOR +MESSAGEID\ntally\/r /);

    // Named, it is asked about: its last redrive, by whom and when, then applies nothing.
    const pending = `They are forgotten, never applied. Its last redrive, by ops at ${at}, is not applied yet: purged now, that redrive applies nothing. To have it applied, do not purge: wait for the actor's turn (a letter applied leaves ${hint('dead-letters list')}; one that fails again is kept again, REDRIVEN "kept again")`;
    const asked = await baton('dead-letters', 'purge', 'tally/r', messageId);
    expect(asked.code).toBe(2);
    expect(asked.err).toBe(
      `baton dead-letters purge: purge dead letter ${messageId}? ${pending} — refused without a terminal to ask: pass --yes to confirm`,
    );
    // Confirmed by --yes, no question was asked: its warning is printed all the same. The
    // redrive that waited in the inbox applies nothing, as it says.
    const purged = await baton('dead-letters', 'purge', 'tally/r', messageId, '--yes');
    expect(purged.code, purged.err).toBe(0);
    expect(purged.err.split('\n')[0]).toBe(`baton: purging dead letter ${messageId}. ${pending}`);
    await work();
    expect(await entriesOf('tally/r')).toEqual([]);
    expect(runs.get('poison')).toBe(3);
    expect((await json('dead-letters', 'list')).deadLetters).toEqual([]);
  });

  it('says an actor id that has no record has none, as likely a typo, when a timer or a dead letter of it is named', async () => {
    await json('send', 'note/t', 'add', '{"entry":"a"}', '--app', NOTES);
    await work();
    const cancel = await baton('timers', 'cancel', 'note/tt', 'soon', '--yes');
    expect(cancel.code).toBe(1);
    expect(cancel.err).toBe(
      `baton timers cancel: note/tt has no record, and no timer soon: it never committed a turn, or its record expired — check the actor id (a typo?): ${hint('actors list note')} lists the type's actors`,
    );
    // Of an actor that has a record, a timer not stored fired or was cancelled.
    const fired = await baton('timers', 'cancel', 'note/t', 'soon', '--yes');
    expect(fired.code).toBe(1);
    expect(fired.err).toMatch(/note\/t has no pending timer soon: it fired or was cancelled/);
    // The engine's refusal, too, names its next command with this run's target flags.
    expect(fired.err).toContain(`list them with ${hint('timers list note/t')}`);

    const messageId = 'ingress:["note/tt","k-1"]';
    for (const action of ['show', 'redrive', 'purge']) {
      const run = await baton('dead-letters', action, 'note/tt', messageId, '--yes');
      expect(run.code, action).toBe(1);
      expect(run.err, action).toBe(
        `baton dead-letters ${action}: note/tt has no record, and keeps no dead letter ${messageId}: it never committed a turn, or its record expired — check the actor id (a typo?): ${hint('actors list note')} lists the type's actors`,
      );
    }
  });

  it('refuses an actor id as the type of actors list, and says when a type has no actors, rather than print an empty table', async () => {
    await json('send', 'tally/l', 'add', '{"entry":"a"}', '--app', TALLY);
    await work();

    const byId = await baton('actors', 'list', 'tally/l');
    expect(byId.code).toBe(2);
    expect(byId.err).toBe(
      `baton actors list: it takes an actor type (tally), not an actor id: ${hint('actors get tally/l')} shows that actor`,
    );
    const none = await baton('actors', 'list', 'talley');
    expect(none.code, none.err).toBe(0);
    expect(none.out).toBe(
      "no actors of type talley (an actor type is the name its actor() definition gives; --app <entry> checks the type against the app's, and names the nearest)",
    );
    expect(await json('actors', 'list', 'talley')).toEqual({ actors: [] });
    expect((await baton('actors', 'list', 'tally')).out).toMatch(/^ID +VERSION.*\ntally\/l /);
    // A page of --limit 2: the next page's command keeps the --limit.
    for (const id of ['tally/m', 'tally/n']) {
      await json('send', id, 'add', '{"entry":"a"}', '--app', TALLY);
    }
    await work();
    const page = (await baton('actors', 'list', 'tally', '--limit', '2')).out.split('\n');
    expect(page).toHaveLength(4);
    const cursor = (await json('actors', 'list', 'tally', '--limit', '2')).cursor;
    expect(page[3]).toBe(
      `more: ${hint(`actors list tally --limit 2 --cursor ${shellQuote(cursor)}`)}`,
    );
    const next = await runBaton(shellWords(page[3]!.slice('more: '.length)).slice(1));
    expect(next.code, next.err).toBe(0);
    expect(next.out.split('\n')).toHaveLength(2);
  });

  it('says an actor paused already stays paused as it was, and audits no pause that changed nothing', async () => {
    await json('send', 'tally/twice', 'add', '{"entry":"a"}', '--app', TALLY);
    await work();
    const first = await baton('actors', 'pause', 'tally/twice', '--yes');
    expect(first.out).toBe('tally/twice paused by ops');
    const paused = (await json('actors', 'get', 'tally/twice')).paused;
    expect(paused).toEqual({ at: expect.stringMatching(ISO_TIME), by: 'ops' });

    const again = await runBaton([
      ...['actors', 'pause', 'tally/twice', '--yes'],
      ...flagsOf(deployment.options),
      ...['--operator', 'someone-else'],
    ]);
    expect(again.code, again.err).toBe(0);
    expect(again.out).toBe(
      `tally/twice was paused already, since ${paused.at} by ops: nothing changed`,
    );
    expect(again.err).not.toMatch(/baton audit/);
    expect((await json('actors', 'get', 'tally/twice')).paused).toEqual(paused);
  });

  it('shows the message failing at the head of an actor’s inbox, since when, the attempts it failed, its handler and error, until it is applied', async () => {
    const sent = Date.now();
    await json('send', 'tally/f', 'add', '{"entry":"a"}', '--app', TALLY);
    const { messageId } = await json(
      'send',
      'tally/f',
      'add',
      '{"entry":"poison"}',
      '--app',
      TALLY,
    );
    const behind = await json('send', 'tally/f', 'add', '{"entry":"b"}', '--app', TALLY);
    /** Runs the worker until tally/f's record counts `attempts` failures of its failing message. */
    const failedTimes = async (attempts: number) => {
      for (let i = 0; i < 40; i++) {
        if ((await deployment.store.load('tally/f'))?.failing?.attempts === attempts) return;
        if ((await source.pollOnce()) === 0) await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`tally/f's message did not fail ${attempts} time(s)`);
    };
    await failedTimes(1);
    const first = await json('actors', 'get', 'tally/f');
    expect(first.state.entries).toEqual(['a']);
    // The handler and the error that failed it, as the record keeps them.
    const error = { code: 'RETRYABLE', message: 'the poison entry breaks add' };
    expect(first.failingMessage).toEqual({
      messageId,
      inboxPosition: expect.any(String),
      attempts: 1,
      since: expect.stringMatching(ISO_TIME),
      handler: 'add',
      error,
      ended: null,
    });
    const { since } = first.failingMessage;
    expect(Date.parse(since)).toBeGreaterThanOrEqual(sent);
    expect(Date.parse(since)).toBeLessThanOrEqual(Date.now());
    // Behind what the actor applied: the message it stops at.
    expect(BigInt(first.failingMessage.inboxPosition)).toBeGreaterThan(BigInt(first.inboxPosition));

    await failedTimes(2);
    // The second attempt keeps the first's time; set back here, it reads as hours of failing.
    const second = (await deployment.store.load('tally/f'))!;
    expect(new Date(second.failing!.since!).toISOString()).toBe(since);
    const hoursAgo = Date.now() - ((3 * 60 + 12) * 60_000 + 30_000);
    await deployment.store.commit({
      record: { ...second, ver: second.ver + 1, failing: { ...second.failing!, since: hoursAgo } },
      expectedVer: second.ver,
      outbox: [],
      idempotency: [],
    });
    const shown = await baton('actors', 'get', 'tally/f');
    expect(shown.code, shown.err).toBe(0);
    expect(shown.out).toContain(
      `\ninbox position   ${first.inboxPosition}\nfailing message  ${messageId} at inbox position ${first.failingMessage.inboxPosition}, failing for 3h 12m, failed 2 time(s) in handler "add": the actor's later messages wait until it is applied or dead-lettered (at a worker's maxAttempts, 3 by default), or ended (${hint(`actors end-failing tally/f ${shellQuote(messageId)}`)}); its last error: RETRYABLE: the poison entry breaks add\npaused           no\n`,
    );

    // The message behind it has no outcome yet: said to wait behind it, with what ends it.
    const waiting = await baton('outcome', behind.messageId);
    expect(waiting.err).toContain('it is not processed yet (or the actor is paused)');
    expect(waiting.err).toContain(
      `. If it is in the inbox, it waits behind message ${messageId}, failing at the head of tally/f's inbox (failing for 3h 12m, failed 2 time(s), last with RETRYABLE: the poison entry breaks add) until that one is applied or dead-lettered`,
    );
    expect(waiting.err).toContain(hint(`actors end-failing tally/f ${shellQuote(messageId)}`));

    // A count an older Baton wrote, without its time, the handler and the error: the worker's log has them.
    const counted = (await deployment.store.load('tally/f'))!;
    const { since: _, handler: __, error: ___, ...count } = counted.failing!;
    await deployment.store.commit({
      record: { ...counted, ver: counted.ver + 1, failing: count },
      expectedVer: counted.ver,
      outbox: [],
      idempotency: [],
    });
    const older = await baton('actors', 'get', 'tally/f');
    expect(older.out).toContain(
      `\nfailing message  ${messageId} at inbox position ${first.failingMessage.inboxPosition}, age unknown, failed 2 time(s): the actor's later messages wait until it is applied or dead-lettered (at a worker's maxAttempts, 3 by default), or ended (${hint(`actors end-failing tally/f ${shellQuote(messageId)}`)}); the worker's log has its error ("message will be retried", with this messageId)\npaused           no\n`,
    );
    expect((await json('actors', 'get', 'tally/f')).failingMessage).toMatchObject({
      attempts: 2,
      since: null,
      handler: null,
      error: null,
    });

    // Fixed: it is applied, then the message behind it, and nothing is failing.
    faults.poisoned = false;
    await work();
    const applied = await json('actors', 'get', 'tally/f');
    expect(applied.state.entries).toEqual(['a', 'poison', 'b']);
    expect(applied.failingMessage).toBeNull();
    expect((await baton('actors', 'get', 'tally/f')).out).not.toContain('failing message');
  });

  it('ends the message failing at an actor’s head, which dead-letters refused: kept as a letter at its next delivery, its handler not run, and the messages behind it applied', async () => {
    await json('send', 'tally/end', 'add', '{"entry":"a"}', '--app', TALLY);
    const { messageId } = await json(
      'send',
      'tally/end',
      'add',
      '{"entry":"poison"}',
      '--app',
      TALLY,
    );
    await json('send', 'tally/end', 'add', '{"entry":"b"}', '--app', TALLY);
    /** Runs the worker until tally/end's record holds `failing` as `wanted` says. */
    const failingUntil = async (wanted: (failing: unknown) => boolean) => {
      for (let i = 0; i < 60; i++) {
        if (wanted((await deployment.store.load('tally/end'))?.failing)) return;
        if ((await source.pollOnce()) === 0) await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error('tally/end did not get there');
    };
    await failingUntil((failing) => failing !== undefined);
    const quoted = shellQuote(messageId);
    const endHint = hint(`actors end-failing tally/end ${quoted}`);

    // Not a dead letter yet: purge and redrive say so, and how to end it.
    for (const action of ['purge', 'redrive']) {
      const refused = await baton('dead-letters', action, 'tally/end', messageId, '--yes');
      expect(refused.code).not.toBe(0);
      expect(refused.err).toContain(
        `message ${messageId} is no dead letter yet: it is failing at the head of tally/end's inbox (handler "add" failed 1 time(s) since `,
      );
      expect(refused.err).toContain(
        `; last error RETRYABLE: the poison entry breaks add), and the messages behind it wait. The worker retries it until its attempts run out, then keeps it as a dead letter to redrive or purge; to end it now, without running its handler again: ${endHint}; to let it succeed, fix its cause and deploy`,
      );
    }
    // Another id is refused, naming the message failing there.
    const wrong = await baton('actors', 'end-failing', 'tally/end', 'other-id', '--yes');
    expect(wrong.code).not.toBe(0);
    expect(wrong.err).toContain(
      `message other-id is not failing at the head of tally/end's inbox: the message failing there is ${messageId} (handler "add" failed 1 time(s) since `,
    );
    // A pause would park it and run it again from its first attempt once resumed: refused.
    const pause = () => baton('actors', 'pause', 'tally/end', '--yes');
    const unpaused = await pause();
    expect(unpaused.code).toBe(1);
    expect(unpaused.err).toContain(
      `tally/end was not paused: message ${messageId} is failing at the head of its inbox (handler "add" failed 1 time(s)`,
    );
    expect(unpaused.err).toContain(`to stop its handler running again, end it (${endHint})`);
    // Its way past the refusal is the command's option, not the library's it stands on.
    expect(unpaused.err).toContain(
      `To pause it all the same, or if the message left the inbox (the inbox's dead-letter queue took it: ${hint('queue-dead-letters list')}), pass --force: ${hint('actors pause tally/end --force')}`,
    );
    expect(unpaused.err).not.toContain('pauseActor');
    expect((await json('actors', 'get', 'tally/end')).paused).toBeNull();
    const unconfirmed = await baton('actors', 'end-failing', 'tally/end', messageId);
    expect(unconfirmed.err).toMatch(/pass --yes to confirm/);
    expect((await deployment.store.load('tally/end'))?.failing?.ended).toBeUndefined();

    const ended = await baton('actors', 'end-failing', 'tally/end', messageId, '--yes');
    expect(ended.code, ended.err).toBe(0);
    expect(ended.out).toContain(`message ${messageId} of tally/end ended by ops (handler "add"`);
    expect(ended.err).toMatch(/baton audit .*"action":"actors end-failing"/);
    const marked = (await json('actors', 'get', 'tally/end')).failingMessage;
    expect(marked.ended).toEqual({ at: expect.stringMatching(ISO_TIME), by: 'ops' });
    expect((await baton('actors', 'get', 'tally/end')).out).toContain(
      `failed 1 time(s) in handler "add": ended by ops at ${marked.ended.at}: its next delivery keeps it as a dead letter`,
    );
    const again = await json('actors', 'end-failing', 'tally/end', messageId, '--yes');
    expect(again).toMatchObject({ alreadyEnded: true, ended: marked.ended });
    // Nor once ended: a pause would drop the end.
    expect((await pause()).err).toContain('an operator ended it (ops, at ');

    // Its next delivery keeps it without a run; the message behind it is applied.
    await failingUntil((failing) => failing === undefined);
    await work();
    expect(runs.get('poison')).toBe(1);
    const record = await json('actors', 'get', 'tally/end');
    expect(record.state.entries).toEqual(['a', 'b']);
    expect(record.failingMessage).toBeNull();
    const letter = await json('dead-letters', 'show', 'tally/end', messageId);
    // Kept with the error its last attempt failed with, as if its attempts had run out.
    expect(letter).toMatchObject({ attempts: 1, error: 'the poison entry breaks add' });

    // Fixed, the letter is redriven as any other and applied once.
    faults.poisoned = false;
    await json('dead-letters', 'redrive', 'tally/end', messageId, '--yes');
    await work();
    expect((await json('actors', 'get', 'tally/end')).state.entries).toEqual(['a', 'b', 'poison']);
    expect(runs.get('poison')).toBe(2);
  });

  it('refuses an outcome asked of what is not a message id, or with a message id as the key, showing both forms', async () => {
    const { messageId } = await json('send', 'note/o', 'add', '{"entry":"a"}', '--app', NOTES);
    await work();
    const forms =
      "baton outcome takes <message id> (a client message's, 'ingress:[…]', quoted as send and ask print it) or <type/key> <idempotency key> (a key the CLI sent with, or with --caller a client's)";
    const bogus = await baton('outcome', 'bogus');
    expect(bogus.code).toBe(2);
    expect(bogus.err).toBe(
      `baton outcome: "bogus" is not a client message's id, and only a client's message (a send or an ask) keeps an outcome: ${forms}`,
    );
    const actor = await baton('outcome', 'note/o');
    expect(actor.code).toBe(2);
    expect(actor.err).toBe(
      `baton outcome: "note/o" is not a client message's id, and only a client's message (a send or an ask) keeps an outcome: note/o is an actor id: give the key after it. ${forms}`,
    );
    // In the order of dead-letters show: the id is no key; said, with the command it meant.
    const swapped = await baton('outcome', 'note/o', messageId);
    expect(swapped.code).toBe(2);
    expect(swapped.err).toBe(
      `baton outcome: ${shellQuote(messageId)} is a message id, not an idempotency key: give it alone, ${hint(`outcome ${shellQuote(messageId)}`)}; ${forms}`,
    );
    expect((await baton('outcome', messageId)).out).toBe('ok null');
  });

  it('chooses and audits a send’s key before it sends, and after a failure says to send it again under that key: applied once', async () => {
    // SQS drops the send's connection: whether the send reached the inbox is unknown.
    const dropping = await unansweringProxy(deployment.options['sqs-endpoint']!, (operation) =>
      /SendMessage/.test(operation) ? 'drop' : 'pass',
    );
    const unreachable = { ...deployment.options, 'sqs-endpoint': dropping.endpoint };
    const argv = ['send', 'note/s', 'add', '{"entry":"once"}', '--app', NOTES];
    const failed = await runBaton([
      ...argv,
      ...flagsOf(unreachable),
      ...['--operator', 'ops'],
    ]).finally(() => dropping.close());
    expect(failed.code).toBe(1);
    const [audit, error] = failed.err.split('\n');
    const key = /"key":"([^"]+)"/.exec(audit!)?.[1];
    expect(audit).toMatch(/^baton audit .*"action":"send","actor":"note\/s","name":"add","key":"/);
    const again = hintWith(
      unreachable,
      `send note/s add '{"entry":"once"}' --app ${NOTES} --key ${key}`,
    );
    expect(error).toMatch(
      new RegExp(
        `^baton send: sending "add" to note/s failed \\(SQS at ${dropping.endpoint} closed the connection before it answered \\(socket hang up; 3 attempts\\)\\); it may have reached the inbox all the same\\. It was sent under the key ${key}: send it again under that key, which makes the two one message: `,
      ),
    );
    expect(
      error!.endsWith(`${again} (without --key it would be sent again, under a new key)`),
    ).toBe(true);
    // Sent again under the key, once the queue is right (twice: a retry of a retry), applied once.
    for (let i = 0; i < 2; i++) {
      const sent = await baton(...argv, '--key', key!);
      expect(sent.code, sent.err).toBe(0);
      await work();
    }
    expect(await entriesOf('note/s')).toEqual(['once']);
    expect((await baton('outcome', 'note/s', key!)).out).toBe('ok null');
  });
});
