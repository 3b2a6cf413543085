/**
 * `baton queue-dead-letters` on DynamoDB Local and ElasticMQ: what SQS moved into the inbox's
 * own dead-letter queue is seen, then moved back into the inbox and applied at most once each —
 * a message the actor applied before it was dead-lettered is not applied again.
 */
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { createAwsClients, SqsQueue } from '@baton/aws';
import { INGRESS } from '@baton/core/adapter';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  createOpsDeployment,
  flagsOf,
  hintWith,
  type OpsDeployment,
  pumpUntil,
  runBaton,
  shellWords,
} from './fixtures/opsDeployment.ts';
import { faults, queueMessage, Tally, tallyAdd } from './fixtures/tallyApp.ts';

const add = tallyAdd;
const message = queueMessage;

describe('baton queue-dead-letters on DynamoDB Local and ElasticMQ', () => {
  let deployment: OpsDeployment;

  beforeEach(async () => {
    deployment = await createOpsDeployment('qdl');
    faults.poisoned = false;
  });

  const baton = (...argv: string[]) =>
    runBaton([...argv, ...flagsOf(deployment.options), '--operator', 'drill']);
  const hint = (command: string) => hintWith(deployment.options, command);
  const sqs = () =>
    createAwsClients({
      dynamodbEndpoint: deployment.options['dynamodb-endpoint']!,
      sqsEndpoint: deployment.options['sqs-endpoint']!,
    }).sqs;
  /** The inbox's dead-letter queue, as SQS moves messages there. */
  const deadLetterQueue = () =>
    new SqsQueue({ client: sqs(), queueUrl: deployment.options['dead-letter-queue-url']! });
  /**
   * A worker that dies on every message of the inbox: each receive leaves it unacknowledged,
   * until SQS (past the queue's four receives) moves it to the dead-letter queue.
   */
  const dieOnInbox = async () => {
    for (let receives = 0; receives < 20; receives++) {
      const { Messages = [] } = await sqs().send(
        new ReceiveMessageCommand({
          QueueUrl: deployment.options['queue-url']!,
          MaxNumberOfMessages: 10,
          VisibilityTimeout: 0,
        }),
      );
      if (Messages.length === 0) return;
    }
    throw new Error('the inbox kept its messages past 20 receives');
  };
  const entries = async () =>
    ((await deployment.store.load('tally/q'))?.state as { entries?: string[] } | undefined)
      ?.entries ?? [];

  it('lists the messages of the inbox’s dead-letter queue, and redrives them into the inbox, each applied once', async () => {
    const source = deployment.worker([Tally]);
    // m0 is applied, then (its worker having died before the ack, say) lands in the queue's
    // dead-letter queue too, with m1 and m2 behind it, never applied.
    await deployment.queue.send([message(add('m0'))]);
    await pumpUntil(deployment.queue, source, async () => (await entries()).length === 1, 'm0');
    const dlq = deadLetterQueue();
    // m3 went from the inbox to the dead-letter queue moments ago: SQS moved it, as it does after
    // maxReceiveCount receives. A redrive under its own deduplication id would be dropped by the
    // inbox as a copy for five minutes after it was first sent.
    await deployment.queue.send([message(add('m3'))]);
    const [taken] = await deployment.queue.receive({ max: 1, visibilityTimeoutMs: 30_000 });
    await deployment.queue.ack([taken!.receipt]);
    // Another reader holds a dead letter of another actor throughout: the redrive moves the
    // rest, and says what it left.
    const other = { ...add('h0'), id: 'ingress:["tally/held","h0"]', to: 'tally/held' };
    await dlq.send([message(other)]);
    expect(await dlq.receive({ max: 1, visibilityTimeoutMs: 120_000 })).toHaveLength(1);
    await dlq.send(['m0', 'm1', 'm2', 'm3'].map((entry) => message(add(entry))));

    const listed = async () =>
      (await baton('queue-dead-letters', 'list', '--json')).json().messages;
    const seen = await listed();
    expect(seen.map((m: { name: string; messageId: string }) => [m.name, m.messageId])).toEqual([
      ['add', add('m0').id],
      ['add', add('m1').id],
      ['add', add('m2').id],
      ['add', add('m3').id],
    ]);
    expect(seen[0]).toMatchObject({ actor: 'tally/q', from: INGRESS });
    // Looking leaves them there.
    expect(await listed()).toHaveLength(4);
    expect((await baton('status', '--json')).json()).toMatchObject({ queueDeadLetters: 5 });
    expect(
      (await baton('queue-dead-letters', 'redrive', '--dry-run', '--json')).json().messages,
    ).toHaveLength(4);
    expect(await listed()).toHaveLength(4);

    const redrive = await baton('queue-dead-letters', 'redrive', '--yes');
    expect(redrive.code).toBe(0);
    expect(redrive.out).toMatch(
      /^redriven 4 message\(s\) into the inbox: each is applied at most once, in its actor's turn, after what its actor received since it left \(order does not hold across this queue\)$/m,
    );
    expect(redrive.out).toMatch(/1 message\(s\) left in it, held by another reader/);
    expect(redrive.err).toMatch(/"action":"queue-dead-letters redrive","moved":4/);
    expect(await listed()).toEqual([]);
    await pumpUntil(deployment.queue, source, async () => (await entries()).length === 4, 'm3');
    // Each applied once: m0's copy is refused as a second outcome of its key, in a turn that
    // then applies the others (so the handler may run more often than a message is applied).
    expect(await entries()).toEqual(['m0', 'm1', 'm2', 'm3']);

    const again = await baton('queue-dead-letters', 'redrive', '--yes', '--json');
    expect(again.json()).toEqual({ redriven: 0, left: 1 });
    expect((await baton('queue-dead-letters', 'list')).out).toMatch(
      /shows no message: it is empty/,
    );
  });

  it('shows each message’s payload, clipped in the table and whole in --json, and leaves them there', async () => {
    const dlq = deadLetterQueue();
    const long = { ...add('x'), payload: { entry: 'a'.repeat(60) } };
    await dlq.send([
      message(long),
      { group: 'tally/raw', dedupeId: 'raw-1', body: 'not\nan envelope' },
    ]);

    const listed = await baton('queue-dead-letters', 'list');
    expect(listed.code, listed.err).toBe(0);
    const lines = listed.out.split('\n');
    expect(lines[0]).toMatch(/^ACTOR +NAME +FROM +MESSAGEID +SENT +REDRIVES +PAYLOAD$/);
    expect(lines[1]).toMatch(/ {2}\d+(ms|s) ago {2}0 {2}/);
    expect(lines[1]).toMatch(/ {2}\{"entry":"a{29}…$/);
    // Its message id a shell word, as dead-letters list prints one: pasted, it is the id.
    const printed = lines[1]!.split(/ {2,}/)[3]!;
    expect(printed).toBe(`'${add('x').id}'`);
    expect(shellWords(printed)).toEqual([add('x').id]);
    expect(lines[2]).toMatch(/^tally\/raw +\(not a Baton envelope\) .* {2}not an envelope$/);
    expect(lines.slice(3)).toEqual([
      'showing 2 of 2 message(s); reading them hid them from other readers for 5s at most, and put them back at once: none was deleted',
      // The runbook's order: what a redrive would move first, then the redrive.
      `each whole, payload included: --json; once their cause is fixed, ${hint('queue-dead-letters redrive --dry-run')} shows what a redrive moves, then ${hint('queue-dead-letters redrive')} moves them into the inbox`,
    ]);
    const { messages } = (await baton('queue-dead-letters', 'list', '--json')).json();
    expect(messages).toEqual([
      expect.objectContaining({ actor: 'tally/q', envelope: long }),
      expect.objectContaining({ actor: 'tally/raw', body: 'not\nan envelope' }),
    ]);
    // Read twice, both are there still, and none is held: a redrive moves both at once.
    expect((await baton('queue-dead-letters', 'redrive', '--yes', '--json')).json()).toEqual({
      redriven: 2,
      left: 0,
    });
  });

  it('counts the times a message was redriven, so one that failed again does not look fresh', async () => {
    const dlq = deadLetterQueue();
    await dlq.send([message(add('m0')), message(add('m1'))]);
    expect((await baton('queue-dead-letters', 'redrive', '--yes', '--json')).json()).toEqual({
      redriven: 2,
      left: 0,
    });
    // The worker still dies on them: SQS moves both back, their attributes with them.
    await dieOnInbox();
    const redrives = async () =>
      (await baton('queue-dead-letters', 'list', '--json'))
        .json()
        .messages.map((m: { messageId: string; redrives: number }) => [m.messageId, m.redrives]);
    expect(await redrives()).toEqual([
      [add('m0').id, 1],
      [add('m1').id, 1],
    ]);
    const listed = await baton('queue-dead-letters', 'list');
    expect(listed.out.split('\n')[1]).toMatch(/ ago {2}1 +\{"entry":"m0"\}$/);
    expect(listed.out).toContain(
      '2 of them were redriven before and came back (REDRIVES): the worker still dies or times out on them',
    );
    const dry = await baton('queue-dead-letters', 'redrive', '--dry-run');
    expect(dry.out.split('\n').at(-1)).toMatch(/^2 of them were redriven before and came back/);

    const again = await baton('queue-dead-letters', 'redrive', '--yes');
    expect(again.out).toContain(
      '2 of them had come back from an earlier redrive: unless their cause is fixed',
    );
    await dieOnInbox();
    expect(await redrives()).toEqual([
      [add('m0').id, 2],
      [add('m1').id, 2],
    ]);
    const json = await baton('queue-dead-letters', 'redrive', '--yes', '--json');
    expect(json.json()).toEqual({ redriven: 2, left: 0, redrivenBefore: 2 });
  });

  it('says which messages it moved to a paused actor: parked there until it is resumed', async () => {
    const source = deployment.worker([Tally]);
    const dlq = deadLetterQueue();
    const other = { ...add('o0'), id: 'ingress:["tally/other","o0"]', to: 'tally/other' };
    await dlq.send([message(add('m0')), message(add('m1')), message(other)]);
    // tally/q has no record yet: a pause before its first turn takes --force.
    expect((await baton('actors', 'pause', 'tally/q', '--yes', '--force')).code).toBe(0);

    const redrive = await baton('queue-dead-letters', 'redrive', '--yes');
    expect(redrive.code, redrive.err).toBe(0);
    expect(redrive.out).toBe(
      `redriven 3 message(s) into the inbox: 2 to paused actor(s) (tally/q), parked there until resumed, then applied once, in order (${hint('actors resume tally/q')}); the other 1 each applied at most once, in its actor's turn`,
    );
    expect((await baton('queue-dead-letters', 'redrive', '--yes', '--json')).json()).toEqual({
      redriven: 0,
      left: 0,
    });
    await pumpUntil(deployment.queue, source);
    expect((await baton('actors', 'get', 'tally/q', '--json')).json().parkedMessages).toBe(2);
    expect(await entries()).toEqual([]);
  });

  it('redrives with --type only the messages to actors of that type, and puts the others back', async () => {
    const source = deployment.worker([Tally]);
    const dlq = deadLetterQueue();
    const note = { ...add('n0'), id: 'ingress:["note/x","n0"]', to: 'note/x' };
    await dlq.send([message(note), ...['m0', 'm1'].map((entry) => message(add(entry)))]);

    const dry = await baton('queue-dead-letters', 'redrive', '--type', 'tally', '--dry-run');
    expect(dry.code, dry.err).toBe(0);
    expect(dry.out.split('\n')[0]).toMatch(
      /^would redrive the messages to tally actors of the 3 in the inbox's dead-letter queue into the inbox, .*; 2 of those shown are to tally actors:$/,
    );
    expect(dry.out).not.toContain('note/x');
    const refused = await baton('queue-dead-letters', 'redrive', '--type', 'tally/q', '--yes');
    expect(refused.err).toContain('--type takes an actor type (tally), not an actor id');

    const redrive = await baton('queue-dead-letters', 'redrive', '--type', 'tally', '--yes');
    expect(redrive.code, redrive.err).toBe(0);
    expect(redrive.out).toMatch(/^redriven 2 message\(s\) into the inbox: /m);
    expect(redrive.out).toContain(
      '1 message(s) to actors of other types left in it, as --type asked',
    );
    expect(redrive.out).not.toContain('held by another reader');
    expect(redrive.err).toMatch(/"action":"queue-dead-letters redrive","moved":2,"type":"tally"/);
    // The other type's message is back in view at once, for another redrive.
    const left = (await baton('queue-dead-letters', 'list', '--json')).json().messages;
    expect(left.map((m: { actor: string }) => m.actor)).toEqual(['note/x']);
    await pumpUntil(deployment.queue, source, async () => (await entries()).length === 2, 'm1');
    expect(await entries()).toEqual(['m0', 'm1']);
    // It says what the queue's messages are to, none near enough to tally to be meant.
    const none = await baton('queue-dead-letters', 'redrive', '--type', 'tally', '--yes');
    expect(none.out).toMatch(
      /^nothing redriven: the inbox's dead-letter queue gave no message to a tally actor \(those read are to actors of type note\)$/m,
    );
  });

  it('counts in a dry run every message the redrive moves, and says how many it shows', async () => {
    const dlq = deadLetterQueue();
    // SQS moved 25 messages of one actor there (its worker kept dying on them).
    const all = Array.from({ length: 25 }, (_, i) => message(add(`m${i}`)));
    for (let i = 0; i < all.length; i += 10) await dlq.send(all.slice(i, i + 10));

    const dry = await baton('queue-dead-letters', 'redrive', '--dry-run');
    expect(dry.code, dry.err).toBe(0);
    // Of one actor, a look shows the first ten (SQS FIFO hands out no more of a group meanwhile).
    expect(dry.out.split('\n')[0]).toBe(
      "would redrive all 25 message(s) of the inbox's dead-letter queue into the inbox, each applied after what its actor received since it left; showing 10 of 25 message(s) (SQS counts approximately; of one actor a look shows the first ten at most, --limit shows more of others):",
    );
    expect(dry.out.split('\n').filter((line) => line.startsWith('tally/q'))).toHaveLength(10);
    expect(
      (await baton('queue-dead-letters', 'redrive', '--dry-run', '--json')).json(),
    ).toMatchObject({ dryRun: true, total: 25 });
    expect((await baton('queue-dead-letters', 'list')).out).toMatch(
      /\nshowing 10 of 25 message\(s\)/,
    );
    const redrive = await baton('queue-dead-letters', 'redrive', '--yes', '--json');
    expect(redrive.json()).toEqual({ redriven: 25, left: 0 });
  });

  it('names a dead-letter queue it cannot read, with --json printing the error too, and status says it is unreadable', async () => {
    const wrong = deployment.options['dead-letter-queue-url']!.replace(/[^/]+$/, 'nosuch.fifo');
    const options = { ...deployment.options, 'dead-letter-queue-url': wrong };
    for (const argv of [
      ['queue-dead-letters', 'list'],
      ['queue-dead-letters', 'redrive', '--dry-run'],
      ['queue-dead-letters', 'redrive', '--yes'],
    ]) {
      const run = await runBaton([...argv, '--json', ...flagsOf(options)]);
      expect(run.code, argv.join(' ')).toBe(1);
      expect(run.json().error, argv.join(' ')).toMatchObject({
        code: 'UNAVAILABLE',
        message: expect.stringContaining(`could not read the inbox's dead-letter queue ${wrong}`),
      });
      expect(run.err, argv.join(' ')).toContain('check --dead-letter-queue-url');
      expect(run.err, argv.join(' ')).toContain(`(and its dead-letter queue ${wrong})`);
    }
    const status = await runBaton(['status', ...flagsOf(options)]);
    expect(status.code).toBe(0);
    expect(status.out).toMatch(
      /^queue dead letters {2}unknown \(unreadable: see "not checked" below\)$/m,
    );
    expect(status.out).toContain(`the inbox dead letters queue, which could not be read`);
  });

  it('refuses without a dead-letter queue to read, and a --limit that is not a count', async () => {
    const { 'dead-letter-queue-url': _, ...withoutDlq } = deployment.options;
    const none = await runBaton(['queue-dead-letters', 'list', ...flagsOf(withoutDlq)]);
    expect(none.code).toBe(2);
    expect(none.err).toMatch(/no dead-letter queue to read: pass --dead-letter-queue-url/);
    const bad = await baton('queue-dead-letters', 'list', '--limit', 'all');
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--limit takes a whole number from 1 to 1000, not "all"/);
  });

  it("refuses a dead-letter queue that is not the inbox's: another deployment's, or the inbox spelt another way, moving nothing", async () => {
    const other = await createOpsDeployment('qdl-other');
    const otherDlq = new SqsQueue({
      client: sqs(),
      queueUrl: other.options['dead-letter-queue-url']!,
    });
    await otherDlq.send([message(add('theirs'))]);
    const inbox = deployment.options['queue-url']!;
    const respelt = inbox.replace('127.0.0.1', 'localhost');
    expect(respelt).not.toBe(inbox);
    for (const [queue, why] of [
      [
        other.options['dead-letter-queue-url']!,
        `is not the inbox's dead-letter queue: the inbox ${inbox} moves its dead letters to `,
      ],
      [respelt, `names the inbox itself (${inbox}, spelt another way)`],
    ] as const) {
      const options = { ...deployment.options, 'dead-letter-queue-url': queue };
      for (const argv of [
        ['queue-dead-letters', 'list'],
        ['queue-dead-letters', 'redrive', '--yes'],
      ]) {
        const run = await runBaton([...argv, '--json', ...flagsOf(options)]);
        expect(run.code, argv.join(' ')).toBe(2);
        expect(run.json().error.message, argv.join(' ')).toContain(
          `--dead-letter-queue-url ${queue} ${why}`,
        );
        expect(run.err).toMatch(/; nothing was read or moved/);
      }
    }
    // Their message is still theirs, and this inbox took nothing.
    expect(await otherDlq.receive({ max: 10, visibilityTimeoutMs: 1_000 })).toHaveLength(1);
    expect(await deployment.queue.receive({ max: 10, visibilityTimeoutMs: 1_000 })).toEqual([]);

    // --force takes a queue the policy named before (here: any other), never the inbox itself.
    const forced = (queue: string) =>
      runBaton([
        'queue-dead-letters',
        'list',
        '--force',
        '--json',
        ...flagsOf({ ...deployment.options, 'dead-letter-queue-url': queue }),
      ]);
    // The look above hid their message for a second.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const taken = await forced(other.options['dead-letter-queue-url']!);
    expect(taken.code, taken.err).toBe(0);
    expect(taken.json().total).toBe(1);
    const itself = await forced(respelt);
    expect(itself.code).toBe(2);
    expect(itself.json().error.message).toContain('names the inbox itself');
  });
});
