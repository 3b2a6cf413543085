/**
 * Ending a failing message marks its count in the actor's record, which must still fit the
 * store's item limit: the mark keeps the last error when it fits, the count alone when only that
 * fits (the letter then says an operator ended it), and is refused, saying why, when not even
 * that fits: the message is dead-lettered when its attempts run out, as before.
 */
import { ErrorCode } from '@baton/core';
import { type ActorRecord, type FailingMessage, jsonSize } from '@baton/core/adapter';
import { endFailingMessage } from '@baton/core/engine';
import { createEmbeddedBackend } from '@baton/embedded';
import { describe, expect, it } from 'vitest';

const maxItemBytes = 3_000;
const failing: FailingMessage = {
  id: 'm-1',
  at: '7',
  attempts: 2,
  since: 1_000,
  handler: 'add',
  error: { code: ErrorCode.RETRYABLE, message: 'e'.repeat(300) },
};
const ended = { at: 2_000, by: 'arn:aws:iam::123456789012:user/ops' };

const { handler: _, error: __, ...count } = failing;

/**
 * A record of `notes/a` holding `held`, its state padded so that the record with `marked` is
 * `over` bytes past the item limit (less what a commit adds).
 */
async function storeWith(held: FailingMessage, marked: FailingMessage, over: number) {
  const backend = createEmbeddedBackend({ limits: { maxItemBytes } });
  const base: ActorRecord = {
    id: 'notes/a',
    ver: 1,
    state: { pad: '' },
    inboxOffset: '6',
    marks: {},
    sentSeq: 0,
    failing: held,
  };
  const size = jsonSize({ ...base, ver: 2, failing: marked });
  const record = { ...base, state: { pad: 'x'.repeat(maxItemBytes + over - size) } };
  await backend.store.commit({ record, expectedVer: 0, outbox: [], idempotency: [] });
  return backend.store;
}

const end = (store: Awaited<ReturnType<typeof storeWith>>) =>
  endFailingMessage(store, 'notes/a', 'm-1', { by: ended.by, now: ended.at });

describe('ending a failing message in a record near the item limit', () => {
  it('keeps the last error with the mark when it fits', async () => {
    const store = await storeWith(failing, { ...failing, ended }, -100);
    expect(await end(store)).toEqual({ ...failing, ended });
    expect((await store.load('notes/a'))?.failing).toEqual({ ...failing, ended });
  });

  it('keeps the count alone when the error would not fit beside the mark', async () => {
    const store = await storeWith(failing, { ...failing, ended }, 5);
    expect(await end(store)).toEqual({ ...count, ended });
  });

  it('refuses, saying why, when not even the count fits beside the mark', async () => {
    // A count kept alone already: its record had no room for the error.
    const store = await storeWith(count, { ...count, ended }, 5);
    const refused = await end(store).catch((e: unknown) => e);
    expect(refused).toMatchObject({
      code: ErrorCode.INVALID_STATE,
      message:
        "notes/a's record is too near the backend's item limit to mark message m-1 ended: it is dead-lettered when its attempts run out (a worker's maxAttempts), as before; baton actors get notes/a shows them",
      details: { actorId: 'notes/a', messageId: 'm-1', noRoom: true },
    });
    expect((await store.load('notes/a'))?.failing).toEqual(count);
  });
});
