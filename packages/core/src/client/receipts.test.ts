import { describe, expect, it } from 'vitest';
import { ingressMessageId } from '../adapter/envelope.ts';
import type { Store } from '../adapter/ports.ts';
import type { KeyClaim } from '../adapter/storedRecords.ts';
import { callerOf } from '../caller.ts';
import { hmacSha256 } from '../shared/hmacSha256.ts';
import { base64url } from '../shared/sha256.ts';
import { RECEIPT_SECRET_CLAIM, receiptSecret, receiptSentAt, withReceipt } from './receipts.ts';

/** Stores over one table of claims, as the Lambdas of one app are; `fail` makes a claim throw. */
function claims() {
  const held = new Map<string, KeyClaim>();
  const calls: string[] = [];
  const faults = { fail: false };
  const store = () =>
    ({
      claimKey: async (claim: KeyClaim) => {
        calls.push(claim.key);
        if (faults.fail) throw new Error('the table is unavailable');
        const holding = held.get(claim.key);
        if (holding) return holding;
        held.set(claim.key, claim);
        return undefined;
      },
    }) as unknown as Store;
  return { store, calls, faults };
}

const envelope = { id: '', to: 'account/alice', sentAt: 1_765_000_000_123.5 } as never;
const anna = callerOf('anna');

describe('receipts', () => {
  it("keep one secret per app: claimed once per store object, read back by the app's other stores", async () => {
    const { store, calls } = claims();
    const first = store();
    const [a, b] = await Promise.all([receiptSecret(first), receiptSecret(first)]);
    expect(a).toBe(b);
    expect(receiptSecret(first)).toBe(a); // known now: given at once, not as a promise
    // The claim's key, as docs/deploys.md names it for an operator who would void receipts.
    expect(calls).toEqual(['$baton/receipt-secret']);
    expect(RECEIPT_SECRET_CLAIM).toBe(calls[0]);
    expect(await receiptSecret(store())).toEqual(a);
  });

  it('try the claim again after one failed', async () => {
    const { store, calls, faults } = claims();
    const one = store();
    faults.fail = true;
    await expect(receiptSecret(one)).rejects.toThrow('unavailable');
    faults.fail = false;
    expect(await receiptSecret(one)).toBeInstanceOf(Uint8Array);
    expect(calls).toHaveLength(2);
  });

  it('tell when a receipt was sent (to the ms below), and nothing for any other id', async () => {
    const { store } = claims();
    const door = store();
    const secret = await receiptSecret(door);
    const { id } = (await withReceipt(door, envelope, anna)) as { id: string };
    expect(receiptSentAt(secret, id)).toBe(1_765_000_000_123);
    const key = JSON.parse(id.slice('ingress:'.length))[1] as string;
    expect(id).toBe(ingressMessageId('account/alice', key, anna));
    for (const other of [
      ingressMessageId('account/alice', 'dep-1', anna),
      ingressMessageId('account/alice', key), // the same key, anonymous
      ingressMessageId('account/bob', key, anna),
      'account/bob:k3j9x2m1qa0z.3',
      'ingress:[not json',
      'ingress:["account/alice"]',
      // The receipt spelt otherwise: the same JSON, but not as a door writes it.
      id.replace('["account/alice",', '[ "account/alice",'),
      id.replace('account/alice', '\\u0061ccount/alice'),
    ]) {
      expect(receiptSentAt(secret, other)).toBeUndefined();
    }
    // Scopes no door makes, though their tag holds: four parts, or parts that are not strings.
    const signed = (parts: unknown[], tagged: number) => {
      const body = `${(1_765_000_000_000).toString(36)}.nonce`;
      const scope = parts.map((part, i) => (i === tagged ? body : part));
      const tag = base64url(hmacSha256(secret, `ingress:${JSON.stringify(scope)}`).subarray(0, 12));
      return `ingress:${JSON.stringify(parts.map((part, i) => (i === tagged ? `${body}.${tag}` : part)))}`;
    };
    expect(receiptSentAt(secret, signed(['account/alice', 'k', 'd', 'e'], 1))).toBeUndefined();
    expect(receiptSentAt(secret, signed(['account/alice', 'k', 7], 1))).toBeUndefined();
    expect(receiptSentAt(secret, signed(['account/alice', 'k'], 1))).toBe(1_765_000_000_000);
    // Under another app's secret, the same receipt is no receipt.
    expect(receiptSentAt(await receiptSecret(claims().store()), id)).toBeUndefined();
  });
});
