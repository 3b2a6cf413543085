/**
 * `resolveTarget` with the resources named outright: what the environment adds to them; and
 * `followUp`, the next command a hint names, with the target options it was given and its
 * operands (ids from data) quoted.
 */
import { execFileSync } from 'node:child_process';
import { BatonError, ErrorCode } from '@baton/core';
import { describe, expect, it } from 'vitest';
import { requireInbox, tableAlone } from './inboxNeeds.ts';
import { OpsContext } from './OpsContext.ts';
import { followUp, resolveTarget, shellQuote } from './target.ts';

/** The words a shell makes of `line`: the arguments a command pasted as `line` is given. */
const shellWords = (line: string) =>
  execFileSync('sh', ['-c', `printf '%s\\0' ${line}`], { encoding: 'utf8' })
    .split('\0')
    .slice(0, -1);

const named = {
  table: 'app-table',
  'queue-url': 'http://127.0.0.1:9324/000000000000/app-inbox.fifo',
  'dynamodb-endpoint': 'http://127.0.0.1:8000',
  'sqs-endpoint': 'http://127.0.0.1:9324',
};

describe('resolveTarget, resources named outright', () => {
  it('takes the outbox index’s key count from BATON_OUTBOX_SHARDS, as the functions do', async () => {
    const target = await resolveTarget(named, { BATON_OUTBOX_SHARDS: '16' });
    expect(target.names).toMatchObject({ table: 'app-table', outboxShards: '16' });
    expect((await resolveTarget(named, {})).names.outboxShards).toBeUndefined();
  });

  it('refuses a key count that is not a whole number, naming the variable', async () => {
    const error = await resolveTarget(named, { BATON_OUTBOX_SHARDS: 'many' }).catch((e) => e);
    expect(error).toBeInstanceOf(BatonError);
    expect((error as BatonError).code).toBe(ErrorCode.INVALID_ARGUMENT);
    expect((error as BatonError).message).toMatch(/BATON_OUTBOX_SHARDS must be a whole number/);
    const over = await resolveTarget(named, { BATON_OUTBOX_SHARDS: '500' }).catch((e) => e);
    expect((over as BatonError).message).toMatch(
      /outboxShards must be an integer from 1 to 100, got 500/,
    );
  });
});

describe('resolveTarget, the table alone', () => {
  it('resolves a table named without its inbox, with no inbox queue to send to', async () => {
    const { 'queue-url': _, ...alone } = named;
    const target = await resolveTarget(alone, {});
    expect(target.names).toEqual({ table: 'app-table' });
    expect(target.queue).toBeUndefined();
    expect(() => requireInbox(target)).toThrow(
      /^it needs the app's inbox queue to send to it, and only the app's table app-table is named: pass --queue-url <inbox url> too/,
    );
    const whole = await resolveTarget(named, {});
    expect(requireInbox(whole).url).toBe(named['queue-url']);
  });

  it('tells the table alone from the options and the environment, before anything is read', () => {
    expect(tableAlone({ table: 't' }, {})).toBe('t');
    expect(tableAlone({}, { BATON_TABLE: 't' })).toBe('t');
    expect(tableAlone({ table: 't', 'queue-url': 'u' }, {})).toBeUndefined();
    expect(tableAlone({ table: 't' }, { BATON_INBOX_URL: 'u' })).toBeUndefined();
    // --stack and --local name the inbox; no table is refused as no deployment.
    expect(tableAlone({ stack: 'Prod' }, { BATON_TABLE: 't' })).toBeUndefined();
    expect(tableAlone({ local: 'http://localhost:3000' }, {})).toBeUndefined();
    expect(tableAlone({}, {})).toBeUndefined();
  });
});

describe('followUp, the next command a hint names', () => {
  it('is the command as before when no target option was given', () => {
    expect(followUp('actors get tally/fred', {})).toBe('baton actors get tally/fred');
  });

  it('repeats every target option given, and nothing else', () => {
    const options = {
      region: 'eu-west-1',
      stack: 'Prod',
      'outbox-shards': '16',
      json: true,
      operator: 'ops',
      app: 'src/app.ts',
    };
    expect(followUp('status', options)).toBe(
      'baton status --stack Prod --region eu-west-1 --outbox-shards 16',
    );
    expect(followUp('actors resume <type/key>', named)).toBe(
      'baton actors resume <type/key> --table app-table --queue-url http://127.0.0.1:9324/000000000000/app-inbox.fifo --dynamodb-endpoint http://127.0.0.1:8000 --sqs-endpoint http://127.0.0.1:9324',
    );
  });

  it('quotes a value with spaces or shell characters, so a shell passes it back as given', () => {
    const values = [
      'My Stack',
      "it's",
      'http://localhost:3000/?a=1&b=2',
      '$(rm -rf ~)',
      '`id`; echo "hi" | cat > x',
      '~',
      '*',
      '',
    ];
    for (const value of values) expect(shellQuote(value)).toMatch(/^'.*'$/s);
    expect(followUp('status', { stack: "it's mine", local: 'http://h/?a=1&b=2' })).toBe(
      `baton status --stack 'it'\\''s mine' --local 'http://h/?a=1&b=2'`,
    );
    // What a shell makes of the printed words: each value, unchanged, as one argument.
    expect(shellWords(values.map(shellQuote).join(' '))).toEqual(values);
  });

  describe('a hint made in a command (OpsContext.followUp)', () => {
    const io = { out: () => {}, err: () => {}, env: {}, now: () => 0 };
    const ctx = new OpsContext(io, { stack: 'Prod' }, []);

    it('quotes each id it names, whatever an app chose as its key, so a shell passes it back unchanged', () => {
      const id = `tally/it's a $(x); \`id\``;
      const messageId = `ingress:["${id}","k 1"]`;
      const hint = ctx.followUp`dead-letters show ${id} ${messageId}`;
      expect(hint).toBe(
        `baton dead-letters show 'tally/it'\\''s a $(x); \`id\`' 'ingress:["tally/it'\\''s a $(x); \`id\`","k 1"]' --stack Prod`,
      );
      expect(shellWords(hint)).toEqual([
        'baton',
        'dead-letters',
        'show',
        id,
        messageId,
        '--stack',
        'Prod',
      ]);
      expect(shellWords(ctx.followUp`actors list ${''} --cursor ${'a b'}`)).toEqual([
        'baton',
        'actors',
        'list',
        '',
        '--cursor',
        'a b',
        '--stack',
        'Prod',
      ]);
    });

    it('leaves a plain id, and the words and placeholders of the command, as written', () => {
      expect(ctx.followUp`actors get ${'tally/fred'}`).toBe(
        'baton actors get tally/fred --stack Prod',
      );
      expect(ctx.followUp`dead-letters show ${'wf-ship/o-1'} ${'tally/a:L1.4'}`).toBe(
        'baton dead-letters show wf-ship/o-1 tally/a:L1.4 --stack Prod',
      );
      expect(ctx.followUp`dead-letters redrive ${'tally/a'} <message id> --force`).toBe(
        'baton dead-letters redrive tally/a <message id> --force --stack Prod',
      );
      expect(ctx.followUp`status`).toBe('baton status --stack Prod');
    });
  });
});
