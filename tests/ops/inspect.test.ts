/**
 * `baton inspect` against DynamoDB Local and ElasticMQ, through HTTP as the page reads it: it
 * shows what the CLI reads (health, dead letters, the paused actors, an actor whole, its failing
 * message, its timers and the messages parked in its inbox, its history as the table keeps it),
 * finds actors by the start of their id, renders and round-trips a 1,000-character key, shows
 * the same after a worker and an inspector restart, refuses every action unless started with
 * --allow-actions, and then needs the page's token and audits each; a letter kept as too old to
 * tell whether it was applied is marked, its plain redrive refused, its forced one applied; a
 * dead letter shows its trail (an operator's end, its redrives) as `dead-letters show` says it.
 */
import { join } from 'node:path';
import { type RunningInspector, resolveTarget, startInspector } from '@baton/cli/ops';
import { commandLine } from '@baton/core/engine';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { faults, Note } from './fixtures/notesApp.ts';
import {
  batonJson,
  createOpsDeployment,
  flagsOf,
  hintWith,
  type OpsDeployment,
  pumpUntil,
  runBaton,
} from './fixtures/opsDeployment.ts';
import { keepTooOldLetter } from './fixtures/tooOldLetter.ts';

const APP = join(import.meta.dirname, 'fixtures', 'notesApp.ts');
const LONG = `note/${'k'.repeat(1000)}`;
/** A time as every `--json` output gives it. */
const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('baton inspect on DynamoDB Local and ElasticMQ', () => {
  let deployment: OpsDeployment;
  const running: RunningInspector[] = [];
  const audits: string[] = [];

  beforeEach(async () => {
    deployment = await createOpsDeployment('inspect');
    faults.poisoned = true;
    audits.length = 0;
  });

  afterEach(async () => {
    await Promise.all(running.splice(0).map((r) => r.close()));
  });

  /** Runs `baton <argv> --json` against the deployment; its parsed output. */
  async function baton(...argv: string[]) {
    return batonJson(deployment, argv);
  }

  /** A worker (a fresh engine: a restart) run until the inbox is empty. */
  async function work() {
    await pumpUntil(deployment.queue, deployment.worker([Note]));
  }

  const hint = (command: string) => hintWith(deployment.options, command);

  async function inspector(allowActions = false) {
    const started = await startInspector({
      target: await resolveTarget(deployment.options, {}),
      allowActions,
      operator: async () => 'test',
      audit: async (action, details) => void audits.push(JSON.stringify({ action, ...details })),
      // As `baton inspect` passes it: its hints name commands with its target flags.
      followUp: (command, ...operands) => hint(commandLine(command, ...operands)),
    });
    running.push(started);
    const api = async (path: string, init?: RequestInit) => {
      const response = await fetch(new URL(path, started.url), init);
      return { status: response.status, body: await response.json() };
    };
    const get = async (path: string) => {
      const { status, body } = await api(path);
      expect(status, JSON.stringify(body)).toBe(200);
      return body;
    };
    return { ...started, api, get };
  }

  it('shows what the CLI reads, finds actors by id prefix, and round-trips a 1,000-character key, across restarts', async () => {
    const added = await baton('send', LONG, 'add', '{"entry":"first"}', '--app', APP);
    const reminded = await baton(
      'send',
      LONG,
      'remind',
      '{"id":"later","inMs":3600000}',
      '--app',
      APP,
    );
    await baton('send', 'note/other', 'add', '{"entry":"poison"}', '--app', APP);
    await baton('send', 'note/kept', 'add', '{"entry":"x"}', '--app', APP);
    await work();

    const page = await inspector();
    const html = await (await fetch(page.url)).text();
    expect(html).toContain('read-only');
    expect(await (await fetch(new URL('/_baton/inspect.js', page.url))).text()).toContain(
      "get('/_baton/api/actor?id=' + encodeURIComponent(id))",
    );

    // The overview is `baton status` and `baton dead-letters list`.
    const overview = await page.get('/_baton/api/overview');
    // A dead letter is a problem: status exits 3.
    const status = await batonJson(deployment, ['status'], 3);
    expect(overview.status.deadLetters).toBe(status.deadLetters);
    expect(overview.status.queues).toEqual(status.queues);
    // Its problems name the commands a terminal runs for them with the inspector's target flags.
    expect(overview.status.problems).toContain(`1 dead letter(s): ${hint('dead-letters list')}`);
    expect(overview.status.problems).toEqual(status.problems);
    const [letter] = (await baton('dead-letters', 'list')).deadLetters;
    expect(overview.deadLetters).toEqual([
      expect.objectContaining({ actorId: 'note/other', messageId: letter.messageId, name: 'add' }),
    ]);

    // Search by the start of an id: the type, or the type and the start of a key.
    const byType = await page.get('/_baton/api/actors?prefix=note');
    expect(byType.actors.map((a: { id: string }) => a.id).sort()).toEqual(
      [LONG, 'note/kept', 'note/other'].sort(),
    );
    const byKey = await page.get(`/_baton/api/actors?prefix=${encodeURIComponent('note/kkkkk')}`);
    expect(byKey.actors.map((a: { id: string }) => a.id)).toEqual([LONG]);
    const paged = await page.get('/_baton/api/actors?prefix=note&limit=2');
    const rest = await page.get(`/_baton/api/actors?prefix=note&cursor=${paged.cursor}`);
    expect([...paged.actors, ...rest.actors]).toHaveLength(3);

    // The 1,000-character key, whole: what `baton actors get` and `timers list` read.
    const actor = await page.get(`/_baton/api/actor?id=${encodeURIComponent(LONG)}`);
    const got = await baton('actors', 'get', LONG);
    expect(actor).toMatchObject({ id: LONG, version: got.version, state: got.state });
    expect(actor.state).toEqual({ entries: ['first'] });
    const timers = (await baton('timers', 'list', LONG)).timers;
    expect(actor.timers).toEqual([
      expect.objectContaining({
        id: 'later',
        kind: 'timer',
        deadLettered: false,
        name: 'ring',
        at: Date.parse(timers[0].due),
      }),
    ]);

    // Its history, newest first, read from the table: the timer it set, then its two outcomes.
    expect(actor.history).toEqual([
      expect.objectContaining({ kind: 'timer set', message: 'ring', id: 'later', ok: true }),
      expect.objectContaining({ kind: 'outcome', id: reminded.messageId, result: 'ok null' }),
      expect.objectContaining({ kind: 'outcome', id: added.messageId, result: 'ok null' }),
    ]);
    expect(actor.history[1].at).toBeGreaterThanOrEqual(actor.history[2].at);
    const poisoned = await page.get('/_baton/api/actor?id=note%2Fother');
    expect(poisoned.history).toEqual([
      expect.objectContaining({ kind: 'dead letter', message: 'add', ok: false }),
      expect.objectContaining({ kind: 'outcome', ok: false }),
    ]);
    expect(poisoned.history[0].result).toContain('the poison entry breaks add');

    // A paused actor's inbox: what waits for it, in order.
    // No record yet: a pause before its first turn takes --force.
    await baton('actors', 'pause', 'note/kept', '--force');
    await baton('send', 'note/kept', 'add', '{"entry":"held 1"}', '--app', APP);
    await baton('send', 'note/kept', 'add', '{"entry":"held 2"}', '--app', APP);
    await work();
    const paused = await page.get('/_baton/api/actor?id=note%2Fkept');
    expect(paused.paused).toMatchObject({ by: 'test' });
    expect(paused.inbox.map((l: { payload: unknown }) => l.payload)).toEqual([
      { entry: 'held 1' },
      { entry: 'held 2' },
    ]);
    expect(paused.history.map((h: { kind: string }) => h.kind)).toEqual([
      'parked',
      'parked',
      'outcome',
    ]);

    // Another worker and another inspector: the same, read from the table.
    await page.close();
    await work();
    const again = await inspector();
    expect(await again.get(`/_baton/api/actor?id=${encodeURIComponent(LONG)}`)).toEqual(actor);
    expect((await again.get('/_baton/api/actor?id=note%2Fother')).history).toEqual(
      poisoned.history,
    );
    expect((await again.get('/_baton/api/overview')).deadLetters).toEqual(overview.deadLetters);

    // Asked for what is not there: a clear error, not a crash.
    const missing = await again.api('/_baton/api/actor?id=note%2Fnobody');
    expect(missing).toEqual({
      status: 404,
      body: { error: expect.objectContaining({ code: 'NOT_FOUND' }) },
    });
  });

  it("lists the paused actors on its overview and shows the message failing at an actor's head", async () => {
    const odd = 'note/<script>alert(1)</script>';
    await baton('send', 'note/held', 'add', '{"entry":"a"}', '--app', APP);
    await work();
    await baton('actors', 'pause', 'note/held', '--yes');
    await baton('actors', 'pause', odd, '--yes', '--force');
    await baton('send', 'note/held', 'add', '{"entry":"parked"}', '--app', APP);
    // A poisoned entry fails at the head of note/failing's inbox; the entry behind it waits.
    await baton('send', 'note/failing', 'add', '{"entry":"a"}', '--app', APP);
    const { messageId } = await baton(
      'send',
      'note/failing',
      'add',
      '{"entry":"poison"}',
      '--app',
      APP,
    );
    await baton('send', 'note/failing', 'add', '{"entry":"b"}', '--app', APP);
    const source = deployment.worker([Note]);
    for (let i = 0; (await deployment.store.load('note/failing'))?.failing === undefined; i++) {
      if (i >= 40) throw new Error("note/failing's message did not fail");
      if ((await source.pollOnce()) === 0) await new Promise((r) => setTimeout(r, 100));
    }

    const page = await inspector();
    // The overview is `baton status`'s: the paused actors, oldest pause first, whole.
    const overview = await page.get('/_baton/api/overview');
    expect(overview.status.paused.complete).toBe(true);
    expect(overview.status.paused.actors).toHaveLength(2);
    expect(overview.status.paused.actors).toEqual(
      expect.arrayContaining([
        { id: 'note/held', at: expect.stringMatching(ISO_TIME), by: 'test' },
        { id: odd, at: expect.stringMatching(ISO_TIME), by: 'test' },
      ]),
    );
    expect(overview.status.paused).toEqual((await baton('status')).paused);
    expect(overview.status.parked).toMatchObject({ messages: 1, byActor: { 'note/held': 1 } });

    // The actor whole: what `baton actors get` says holds it.
    const failing = await page.get('/_baton/api/actor?id=note%2Ffailing');
    const got = await baton('actors', 'get', 'note/failing');
    // The same JSON as `actors get --json`'s: the error as { code, message }.
    expect(failing.failing).toEqual(got.failingMessage);
    expect(got.failingMessage).toMatchObject({ messageId, handler: 'add' });
    expect(got.failingMessage.error).toEqual({
      code: expect.any(String),
      message: expect.any(String),
    });
    expect(got.failingMessage.attempts).toBeGreaterThan(0);
    expect(failing.state).toEqual({ entries: ['a'] });
    expect(failing.paused).toBeNull();
    const held = await page.get('/_baton/api/actor?id=note%2Fheld');
    expect(held).toMatchObject({ paused: { by: 'test' }, failing: null });
    const oddActor = await page.get(`/_baton/api/actor?id=${encodeURIComponent(odd)}`);
    expect(oddActor).toMatchObject({ id: odd, paused: { by: 'test' }, failing: null });

    // Fixed, it is applied and the message behind it too: nothing is failing.
    faults.poisoned = false;
    await pumpUntil(deployment.queue, source);
    expect((await page.get('/_baton/api/actor?id=note%2Ffailing')).failing).toBeNull();
  });

  it('refuses actions unless started with --allow-actions; then needs the page’s token, acts once and audits it', async () => {
    await baton('send', 'note/other', 'add', '{"entry":"poison"}', '--app', APP);
    await work();
    const [letter] = (await baton('dead-letters', 'list')).deadLetters;
    const redrive = (token?: string) => ({
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { 'x-baton-token': token } : {}) },
      body: JSON.stringify({ actorId: 'note/other', messageId: letter.messageId }),
    });

    const readOnly = await inspector();
    const refused = await readOnly.api('/_baton/api/redrive', redrive(readOnly.token));
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toBe(
      `the inspector is read-only: restart it with ${hint('inspect --allow-actions')} to redrive`,
    );
    expect((await baton('dead-letters', 'list')).deadLetters).toHaveLength(1);

    const acting = await inspector(true);
    expect(await (await fetch(acting.url)).text()).toContain('actions allowed');
    const tokenless = await acting.api('/_baton/api/redrive', redrive());
    expect(tokenless.status).toBe(401);
    const forged = await acting.api('/_baton/api/redrive', redrive(readOnly.token));
    expect(forged.status).toBe(401);
    expect(audits).toEqual([]);

    faults.poisoned = false;
    const done = await acting.api('/_baton/api/redrive', redrive(acting.token));
    expect(done).toEqual({ status: 200, body: { done: 'redrive', actor: 'note/other' } });
    await work();
    expect((await baton('actors', 'get', 'note/other')).state).toEqual({ entries: ['poison'] });
    expect((await baton('dead-letters', 'list')).deadLetters).toEqual([]);
    // The history shows the redriven message's new outcome, not the page's DEAD_LETTERED.
    const history = (await readOnly.get('/_baton/api/actor?id=note%2Fother')).history;
    expect(history).toEqual([
      expect.objectContaining({
        kind: 'outcome',
        id: letter.messageId,
        ok: true,
        result: 'ok null',
      }),
    ]);
    expect(audits).toEqual([
      JSON.stringify({
        action: 'redrive',
        actor: 'note/other',
        messageId: letter.messageId,
        from: 'inspect',
      }),
    ]);
  });

  it("shows a dead letter's trail as dead-letters show says it: how often it was redriven, when last, by whom, and what came of it", async () => {
    await baton('send', 'note/trail', 'add', '{"entry":"poison"}', '--app', APP);
    await work();
    const page = await inspector();
    const letters = async () => (await page.get('/_baton/api/overview')).deadLetters;
    const [fresh] = await letters();
    expect(fresh).toMatchObject({ actorId: 'note/trail' });
    expect(fresh).not.toHaveProperty('trail');
    const { messageId } = fresh;
    /** `dead-letters show`'s line `label`, as the page says it: no padding, no age. */
    const shown = async (label: string) => {
      const run = await runBaton([
        ...['dead-letters', 'show', 'note/trail', messageId],
        ...flagsOf(deployment.options),
      ]);
      const line = run.out.split('\n').find((l) => l.startsWith(label)) ?? '';
      return sansAge(line.replace(/^(\w+) +/, '$1 '));
    };
    const sansAge = (line: string) => line.replace(/\(\d[^)]* ago\)/, '(… ago)');

    // Redriven and not applied yet: the page says so, as the CLI does (do not purge it).
    await baton('dead-letters', 'redrive', 'note/trail', messageId);
    const { lastRedrive } = (await baton('dead-letters', 'list')).deadLetters[0];
    expect(lastRedrive).toMatchObject({ by: 'test', at: expect.stringMatching(ISO_TIME) });
    const [pending] = await letters();
    expect(pending.trail).toEqual({
      redrives: 1,
      lastRedrive: { at: lastRedrive.at, by: 'test', result: 'notAppliedYet' },
      lines: [expect.stringContaining(`redriven 1 time(s), last at ${lastRedrive.at} (`)],
    });
    expect(sansAge(pending.trail.lines[0])).toBe(await shown('redriven'));
    expect(pending.trail.lines[0]).toContain(
      ') by test, not applied yet: the letter stays kept until note/trail',
    );

    // Failed again, kept again: that redrive did not apply it, on the overview and the actor's.
    await work();
    const [again] = await letters();
    expect(again.at).not.toBe(pending.at);
    expect(again.trail).toMatchObject({ redrives: 1, lastRedrive: { result: 'keptAgain' } });
    expect(again.trail.lines).toEqual([
      expect.stringContaining(
        `) by test, which did not apply it: it was kept again at ${new Date(again.at).toISOString()}, its attempts counted afresh`,
      ),
    ]);
    expect(sansAge(again.trail.lines[0])).toBe(await shown('redriven'));
    const actor = await page.get(`/_baton/api/actor?id=${encodeURIComponent('note/trail')}`);
    const [own] = actor.deadLetters;
    expect({ ...own.trail, lines: own.trail.lines.map(sansAge) }).toEqual({
      ...again.trail,
      lines: again.trail.lines.map(sansAge),
    });
    // The page renders each line under its letter.
    const script = await (await fetch(new URL('/_baton/inspect.js', page.url))).text();
    expect(script).toContain("(l.trail ? trail(l.trail) : '')");
  });

  it('marks a letter kept as too old to tell, whose plain redrive is refused, and redrives it with force', async () => {
    await baton('send', 'note/old', 'add', '{"entry":"first"}', '--app', APP);
    await work();
    // A message of a sender's life that ended, kept as too old to tell (as the engine keeps it).
    const messageId = await keepTooOldLetter(deployment.store, 'note/old');
    const page = await inspector(true);
    const [letter] = (await page.get('/_baton/api/overview')).deadLetters;
    expect(letter).toMatchObject({ actorId: 'note/old', messageId, tooOldToTell: true });
    expect(letter).not.toHaveProperty('answered');
    // Its button redrives it with force, once the page's question is confirmed, the reason shown.
    const script = await (await fetch(new URL('/_baton/inspect.js', page.url))).text();
    expect(script).toContain("needsForce('kept as too old to tell whether it was applied");
    expect(script).toContain('and redriven it would be applied twice');
    const redrive = (force: boolean) =>
      page.api('/_baton/api/redrive', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-baton-token': page.token },
        body: JSON.stringify({ actorId: 'note/old', messageId, ...(force ? { force } : {}) }),
      });
    const refused = await redrive(false);
    expect(refused.body.error).toMatchObject({
      code: 'INVALID_STATE',
      message: expect.stringContaining('too old to tell whether it was applied'),
    });
    expect(await redrive(true)).toEqual({
      status: 200,
      body: { done: 'redrive', actor: 'note/old' },
    });
    await work();
    expect((await baton('actors', 'get', 'note/old')).state).toEqual({
      entries: ['first', 'late'],
    });
    expect((await page.get('/_baton/api/overview')).deadLetters).toEqual([]);
  });
});
