/**
 * What the security review tried against the bank, as data: every request a caller who is not
 * alice must be refused when it aims at alice's account or alice's view — each internal handler,
 * each public handler of another user's actor, another user's query and the admin view.
 */
import type { ClientMessage, ServerMessage } from '@baton/protocol';
import { demoToken } from '../../examples/bank/src/demoAuth.ts';

/** Alice's balance before the attacks: a number no refusal may mention. */
export const ALICE_BALANCE = 4242;

/** Messages to alice's account that nobody but alice (or actors) may send. */
export const MESSAGES: readonly { readonly name: string; readonly payload: unknown }[] = [
  // Internal: only accounts send them.
  { name: 'credit', payload: { from: 'mallory', amount: 1_000_000 } },
  { name: 'refund', payload: { amount: 1_000_000 } },
  // Public, but alice's own.
  { name: 'withdraw', payload: { amount: 1 } },
  { name: 'transfer', payload: { to: 'mallory', amount: 1 } },
  { name: 'deposit', payload: { amount: 1 } },
  { name: 'close', payload: {} },
  { name: 'balance', payload: {} },
  // Unknown: refused the same way, naming nothing internal.
  { name: 'mint', payload: { amount: 1_000_000 } },
];

/** Subscriptions that would show alice's balance. */
export const SUBSCRIPTIONS: readonly { readonly query: string; readonly args: unknown }[] = [
  { query: 'balances', args: { accounts: ['alice'] } },
  { query: 'balances', args: { accounts: ['mallory', 'alice'] } },
  { query: 'balances', args: { accounts: ['alice', 'bob', 'carol'] } },
  { query: 'adminView', args: {} },
];

/** The demo tokens of the bank's users. */
export const tokens = {
  alice: demoToken({ userId: 'alice', role: 'customer' }),
  mallory: demoToken({ userId: 'mallory', role: 'customer' }),
};

/** Every attack as client frames, each with its own request or subscription id. */
export function attackFrames(tag: string): ClientMessage[] {
  const frames: ClientMessage[] = [];
  MESSAGES.forEach(({ name, payload }, i) => {
    for (const type of ['send', 'ask'] as const) {
      frames.push({
        v: 1,
        type,
        requestId: `${tag}-${type}-${i}`,
        to: 'account/alice',
        name,
        payload,
        idempotencyKey: `${tag}-${type}-${i}`,
      } as ClientMessage);
    }
  });
  SUBSCRIPTIONS.forEach(({ query, args }, i) => {
    frames.push({ v: 1, type: 'subscribe', id: `${tag}-sub-${i}`, query, args } as ClientMessage);
  });
  return frames;
}

/** The ids `attackFrames(tag)` used: each must get exactly one FORBIDDEN error. */
export function attackIds(tag: string): { requests: string[]; subscriptions: string[] } {
  const requests = MESSAGES.flatMap((_, i) => [`${tag}-send-${i}`, `${tag}-ask-${i}`]);
  const subscriptions = SUBSCRIPTIONS.map((_, i) => `${tag}-sub-${i}`);
  return { requests, subscriptions };
}

/**
 * Problems with what a connection received for the attacks: anything but one FORBIDDEN error
 * per request and subscription, an `accepted`, a result, or a frame naming an internal handler
 * or alice's balance. An empty list: refused, nothing leaked.
 */
export function leaks(frames: readonly ServerMessage[], tag: string): string[] {
  const problems: string[] = [];
  const { requests, subscriptions } = attackIds(tag);
  const mine = frames.filter((frame) => JSON.stringify(frame).includes(tag));
  const asked = new Map<string, string>();
  MESSAGES.forEach(({ name }, i) => {
    asked.set(`${tag}-send-${i}`, name);
    asked.set(`${tag}-ask-${i}`, name);
  });
  for (const frame of mine) {
    const text = JSON.stringify(frame);
    if (frame.type !== 'error') problems.push(`not refused: ${text}`);
    else if (frame.error.code !== 'FORBIDDEN') problems.push(`not FORBIDDEN: ${text}`);
    // A refusal may repeat the name asked for, never name another internal handler.
    const own = frame.type === 'error' ? asked.get(frame.requestId ?? '') : undefined;
    const others = ['credit', 'refund'].filter((name) => name !== own);
    if (others.some((name) => text.includes(name))) {
      problems.push(`names an internal handler: ${text}`);
    }
    if (text.includes(String(ALICE_BALANCE))) problems.push(`shows alice's balance: ${text}`);
  }
  const errored = (id: string) =>
    mine.filter((f) => f.type === 'error' && (f.requestId === id || f.id === id)).length;
  for (const id of [...requests, ...subscriptions]) {
    if (errored(id) !== 1) problems.push(`${id}: ${errored(id)} errors, expected 1`);
  }
  return problems;
}
