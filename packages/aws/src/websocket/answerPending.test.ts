import { ErrorCode } from '@baton/core';
import { type IdempotencyRecord, messageFingerprint } from '@baton/core/adapter';
import type { ServerMessage } from '@baton/protocol';
import { describe, expect, it } from 'vitest';
import { answerPending } from './answerPending.ts';
import type { Pusher } from './Pusher.ts';
import type { PendingItem } from './registry/PendingRequests.ts';
import type { ReactiveContext } from './WebSocketOptions.ts';

const key = 'ingress:["account/alice","k1"]';
const first = messageFingerprint('deposit', { amount: 5 });
const second = messageFingerprint('deposit', { amount: 7 });

/** Answers `pending` from `record` with a registry and a pusher faked in memory. */
async function answer(record: IdempotencyRecord, pending: PendingItem[]) {
  const sent: { connectionId: string; frame: ServerMessage }[] = [];
  const context = {
    registry: { pending: { take: async (k: string) => (k === key ? pending : []) } },
  } as unknown as ReactiveContext;
  const pusher = {
    send: async (connectionId: string, frame: ServerMessage) => {
      sent.push({ connectionId, frame });
    },
  } as unknown as Pusher;
  await answerPending(context, pusher, record);
  return sent;
}

const record = (fingerprint: string | undefined, ok = true): IdempotencyRecord => ({
  key,
  actorId: 'account/alice',
  outcome: ok
    ? { ok: true, value: 5 }
    : { ok: false, error: { code: ErrorCode.REJECTED, message: 'no', details: {} } },
  expiresAt: 0,
  ...(fingerprint === undefined ? {} : { fingerprint }),
});

const ask = (requestId: string, fingerprint?: string): PendingItem => ({
  connectionId: 'c1',
  requestId,
  kind: 'ask',
  actorId: 'account/alice',
  name: 'deposit',
  fingerprint,
});

describe('answerPending', () => {
  it("answers no request from an outcome that waits for its dead letter's redrive, and takes none", async () => {
    const waiting: IdempotencyRecord = {
      ...record(first, false),
      outcome: {
        ok: false,
        error: { code: ErrorCode.DEAD_LETTERED, message: 'kept', details: { awaitsRedrive: true } },
      },
    };
    let taken = 0;
    const context = {
      registry: {
        pending: {
          take: async () => {
            taken++;
            return [ask('r1', first)];
          },
        },
      },
    } as unknown as ReactiveContext;
    const pusher = { send: async () => {} } as unknown as Pusher;
    await answerPending(context, pusher, waiting);
    expect(taken).toBe(0);
    // Its purge's outcome, unmarked, answers it.
    const purged = await answer({ ...waiting, outcome: { ...record(first, false).outcome } }, [
      ask('r1', first),
    ]);
    expect(purged).toHaveLength(1);
  });

  it('answers the request of the recorded message, and refuses one made with its key for another message', async () => {
    const sent = await answer(record(first), [ask('r1', first), ask('r2', second)]);
    const byRequest = new Map(
      sent.map(({ frame }) => [(frame as { requestId: string }).requestId, frame]),
    );
    expect(byRequest.get('r1')).toEqual({ v: 1, type: 'reply', requestId: 'r1', value: 5 });
    const refused = byRequest.get('r2');
    expect(refused).toMatchObject({
      type: 'error',
      requestId: 'r2',
      error: {
        code: ErrorCode.IDEMPOTENCY_KEY_REUSED,
        details: { messageId: key, to: 'account/alice', name: 'deposit' },
      },
    });
    expect(refused?.type === 'error' && refused.error.message).toMatch(
      /already used for another message.*use a fresh key for a new message/,
    );
  });

  it('refuses another message under the key even when the outcome is an error, and a visible send too', async () => {
    const visible: PendingItem = { ...ask('r3', second), kind: 'visible' };
    const sent = await answer(record(first, false), [ask('r2', second), visible]);
    expect(sent.map(({ frame }) => frame.type === 'error' && frame.error.code)).toEqual([
      ErrorCode.IDEMPOTENCY_KEY_REUSED,
      ErrorCode.IDEMPOTENCY_KEY_REUSED,
    ]);
  });

  it('answers as before when the pending item or the record has no fingerprint', async () => {
    for (const [recorded, pending] of [
      [first, undefined],
      [undefined, second],
    ] as const) {
      const sent = await answer(record(recorded), [ask('r1', pending)]);
      expect(sent).toEqual([
        { connectionId: 'c1', frame: { v: 1, type: 'reply', requestId: 'r1', value: 5 } },
      ]);
    }
  });
});
