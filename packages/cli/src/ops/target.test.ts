/**
 * `resolveTarget` with the resources named outright: what the environment adds to them; and
 * `followUp`, the next command a hint names, with the target options it was given.
 */
import { execFileSync } from 'node:child_process';
import { BatonError, ErrorCode } from '@baton/core';
import { describe, expect, it } from 'vitest';
import { followUp, resolveTarget, shellQuote } from './target.ts';

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
    const printed = values.map(shellQuote).join(' ');
    const parsed = execFileSync('sh', ['-c', `printf '%s\\0' ${printed}`], { encoding: 'utf8' });
    expect(parsed.split('\0').slice(0, -1)).toEqual(values);
  });
});
