import { ErrorCode } from '@baton/core';
import { type IdempotencyRecord, messageFingerprint } from '@baton/core/adapter';
import type { ServerMessage } from '@baton/protocol';
import { describe, expect, it } from 'vitest';
import { answerFound, answerPending } from './answerPending.ts';
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

describe('answerPending, many requests at once', () => {
  it('answers them a few at a time', async () => {
    let sending = 0;
    let most = 0;
    const waiting = Array.from({ length: 100 }, (_, i) => ask(`r${i}`, first));
    const context = {
      registry: { pending: { take: async () => waiting } },
    } as unknown as ReactiveContext;
    const pusher = {
      send: async () => {
        sending++;
        most = Math.max(most, sending);
        await new Promise((resolve) => setTimeout(resolve, 1));
        sending--;
        return true;
      },
    } as unknown as Pusher;
    await answerPending(context, pusher, record(first));
    expect(most).toBeGreaterThan(1);
    expect(most).toBeLessThanOrEqual(16);
  });
});

describe('answerFound (an outcome recorded before its re-sent visible send was accepted)', () => {
  const visible: PendingItem = { ...ask('r1', first), kind: 'visible' };

  /** Answers `visible` with a connection that reads nothing, recording what it did in order. */
  async function answerShown(shownBefore: boolean, posted = true) {
    const steps: string[] = [];
    const context = {
      registry: {
        pending: { take: async () => [visible] },
        subscriptions: {
          of: async () => {
            steps.push('read subscriptions');
            return [];
          },
        },
        shown: {
          has: async (connectionId: string, k: string) => {
            steps.push(`has ${connectionId} ${k === key}`);
            return shownBefore;
          },
          add: async (connectionId: string, k: string) => {
            steps.push(`add ${connectionId} ${k === key}`);
          },
        },
      },
    } as unknown as ReactiveContext;
    const pusher = {
      send: async (_connectionId: string, frame: ServerMessage) => {
        steps.push(`send ${frame.type}`);
        return posted;
      },
    } as unknown as Pusher;
    await answerFound(context, pusher, record(first));
    return steps;
  }

  it('shows the write, answers visible, then remembers the connection was shown it', async () => {
    expect(await answerShown(false)).toEqual([
      'has c1 true',
      'read subscriptions',
      'send visible',
      'add c1 true',
    ]);
  });

  it('answers visible at once, re-running nothing, to a connection shown the write already', async () => {
    expect(await answerShown(true)).toEqual(['has c1 true', 'send visible']);
  });

  it('remembers nothing when visible could not be sent', async () => {
    expect(await answerShown(false, false)).toEqual([
      'has c1 true',
      'read subscriptions',
      'send visible',
    ]);
  });
});
