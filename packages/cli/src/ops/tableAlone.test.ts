/**
 * The operating commands given the table alone (`--table` without `--queue-url`), on DynamoDB
 * Local and ElasticMQ: those that only read the table run; `status` and `backlog` report the
 * table's part and say in one line that the inbox was left out, and which flag adds it; those
 * that send to the inbox are refused before they do anything, and their dry runs go on.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  createOpsDeployment,
  flagsOf,
  type OpsDeployment,
  runBaton,
} from '../../../../tests/ops/fixtures/opsDeployment.ts';
import { startInspector } from './inspect/inspectServer.ts';
import { resolveTarget } from './target.ts';

/** How the inbox's line of `status` and `backlog` reads when it is not named. */
const INBOX_LINE =
  /^inbox +not read, no inbox named: --queue-url <inbox url> adds it \(also BATON_INBOX_URL\), or --stack <name>$/m;
/** How to name the inbox, as a refusal for want of it says. */
const NAME_IT =
  "pass --queue-url <inbox url> too (also BATON_INBOX_URL; the stack's Inbox queue), or --stack <name> instead";

describe('baton given the table alone, on DynamoDB Local and ElasticMQ', () => {
  let deployment: OpsDeployment;
  /** The table and the endpoints: no queue. */
  let options: Record<string, string>;
  let tableAlone: string[];
  let table: string;

  beforeAll(async () => {
    deployment = await createOpsDeployment('ops-table-alone');
    const {
      'queue-url': _inbox,
      'dead-letter-queue-url': _deadLetters,
      ...rest
    } = deployment.options;
    options = rest;
    tableAlone = flagsOf(rest);
    table = rest.table!;
    // An actor paused through the whole target, for the reads below to find (before its first
    // turn: --force).
    const paused = await runBaton([
      ...['actors', 'pause', 'tally/p', '--yes', '--force', '--operator', 'ops'],
      ...flagsOf(deployment.options),
    ]);
    expect(paused.code).toBe(0);
  });

  it("status reports the table's part, and says in one line the inbox was left out and which flag adds it", async () => {
    const human = await runBaton(['status', ...tableAlone]);
    expect(human.code).toBe(0);
    expect(human.err).toBe('');
    expect(human.out).toMatch(new RegExp(`^table +${table}$`, 'm'));
    expect(human.out).toMatch(INBOX_LINE);
    expect(human.out).toMatch(/^paused +.*tally\/p/m);
    expect(human.out).toMatch(
      /not checked: the inbox queue, its depth and whether it is behind \(--queue-url or BATON_INBOX_URL\)/,
    );
    // No queue is named: no table of queues, nor a line on their ages.
    expect(human.out).not.toMatch(/in flight +delayed|oldest message age/);

    const json = (await runBaton(['status', '--json', ...tableAlone])).json();
    expect(json).toMatchObject({ table, inbox: null, queues: [], queueDeadLetters: null });
    expect(json.paused.actors.map((a: { id: string }) => a.id)).toEqual(['tally/p']);
    expect(json.unchecked[0]).toBe(
      'the inbox queue, its depth and whether it is behind (--queue-url or BATON_INBOX_URL)',
    );
  });

  it('status reads the queues it is given beside the table, the inbox not among them', async () => {
    const dlq = deployment.options['dead-letter-queue-url']!;
    const run = await runBaton([
      ...['status', '--json', '--dead-letter-queue-url', dlq],
      ...tableAlone,
    ]);
    expect(run.code).toBe(0);
    const json = run.json();
    expect(json.inbox).toBeNull();
    expect(json.queues.map((q: { name: string }) => q.name)).toEqual(['inbox dead letters']);
    expect(json.queueDeadLetters).toBe(0);
  });

  it("backlog counts what the table records, and says the inbox's messages were left out", async () => {
    const human = await runBaton(['backlog', ...tableAlone]);
    expect(human.code).toBe(0);
    expect(human.out).toMatch(INBOX_LINE);
    const json = (await runBaton(['backlog', '--json', ...tableAlone])).json();
    expect(json.inbox).toBeNull();
    expect(json.notCounted[0]).toBe(
      "messages in the inbox queue, which is not named (--queue-url or BATON_INBOX_URL); a failing actor's later messages wait there, behind its failing message",
    );
  });

  it('reads actors, dead letters, timers and workflows from the table alone', async () => {
    const get = await runBaton(['actors', 'get', 'tally/p', ...tableAlone]);
    expect(get.code).toBe(0);
    expect(get.out).toMatch(/^paused +since .* by ops$/m);
    const list = await runBaton(['actors', 'list', 'tally', '--json', ...tableAlone]);
    expect(list.code).toBe(0);
    expect(list.json().actors).toMatchObject([{ id: 'tally/p' }]);
    for (const argv of [
      ['dead-letters', 'list'],
      ['dead-letters', 'purge', '--all', '--yes'],
      ['timers', 'list', 'tally/p'],
      ['workflows', 'list', 'ship'],
    ]) {
      const run = await runBaton([...argv, ...tableAlone]);
      expect({ argv, code: run.code, err: run.err }).toEqual({ argv, code: 0, err: '' });
    }
    const missing = await runBaton(['actors', 'get', 'tally/nobody', ...tableAlone]);
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/^baton actors get: tally\/nobody has no record/);
  });

  it('refuses a command that sends to the inbox before it changes anything', async () => {
    const before = await deployment.queue.approximateCounts();
    const resume = await runBaton(['actors', 'resume', 'tally/p', '--yes', ...tableAlone]);
    expect(resume.code).toBe(2);
    expect(resume.err).toBe(
      `baton actors resume: it needs the app's inbox queue to send the actor a wake-up, and only the app's table ${table} is named: ${NAME_IT}; nothing was done`,
    );
    const pause = await runBaton(['actors', 'pause', 'tally/q', '--yes', ...tableAlone]);
    expect(pause.code).toBe(2);
    expect(pause.err).toMatch(/^baton actors pause: it needs the app's inbox queue/);
    // Still paused; the other never written; nothing more sent to the inbox.
    expect((await deployment.store.load('tally/p'))?.paused?.by).toBe('ops');
    expect(await deployment.store.load('tally/q')).toBeUndefined();
    expect(await deployment.queue.approximateCounts()).toEqual(before);
  });

  it('runs a dry run from the table alone, noting what the command itself needs', async () => {
    const dry = await runBaton(['dead-letters', 'redrive', '--all', '--dry-run', ...tableAlone]);
    expect(dry.code).toBe(0);
    expect(dry.out).toBe('would redrive nothing: no dead letter matches');
    expect(dry.err).toBe(
      `baton: a dry run reads the table alone; without --dry-run, baton dead-letters redrive needs the app's inbox queue to send each letter back: ${NAME_IT}`,
    );
  });

  it("reads the inbox's dead-letter queue without the inbox, and says which queue to pass without either", async () => {
    const dlq = deployment.options['dead-letter-queue-url']!;
    const list = await runBaton([
      ...['queue-dead-letters', 'list', '--dead-letter-queue-url', dlq],
      ...tableAlone,
    ]);
    expect(list.code).toBe(0);
    expect(list.out).toMatch(/^the inbox's dead-letter queue shows no message/);
    const none = await runBaton(['queue-dead-letters', 'list', ...tableAlone]);
    expect(none.code).toBe(2);
    expect(none.err).toBe(
      'baton queue-dead-letters list: no dead-letter queue to read: pass --dead-letter-queue-url <url> (or --stack <name>, whose outputs name it)',
    );
  });

  it('names the table it looked for, and no inbox, when the table is not there', async () => {
    const run = await runBaton(['status', ...flagsOf({ ...options, table: `${table}-typo` })]);
    expect(run.code).toBe(1);
    expect(run.err.split('\n').at(-1)).toBe(
      `  looked for table ${table}-typo on DynamoDB at ${deployment.options['dynamodb-endpoint']} and SQS at ${deployment.options['sqs-endpoint']}: check the names (--table) and the endpoints (--dynamodb-endpoint, --sqs-endpoint)`,
    );
  });

  it("serves the inspector's overview from the table alone; an action that sends to the inbox is refused", async () => {
    const inspector = await startInspector({
      target: await resolveTarget(options, {}),
      allowActions: true,
      operator: async () => 'ops',
      audit: async () => {},
    });
    try {
      const overview = await (await fetch(new URL('/_baton/api/overview', inspector.url))).json();
      expect(overview.status).toMatchObject({ table, inbox: null, queues: [] });
      expect(overview.status.paused.actors).toMatchObject([{ id: 'tally/p' }]);
      const resume = await fetch(new URL('/_baton/api/resume', inspector.url), {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-baton-token': inspector.token },
        body: JSON.stringify({ actorId: 'tally/p' }),
      });
      expect(resume.status).toBe(400);
      expect((await resume.json()).error.message).toBe(
        `it needs the app's inbox queue to send to it, and only the app's table ${table} is named: ${NAME_IT}; nothing was done`,
      );
      expect((await deployment.store.load('tally/p'))?.paused?.by).toBe('ops');
    } finally {
      await inspector.close();
    }
  });
});
