/** `resolveTarget` with the resources named outright: what the environment adds to them. */
import { BatonError, ErrorCode } from '@baton/core';
import { describe, expect, it } from 'vitest';
import { resolveTarget } from './target.ts';

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
