/**
 * The bank keeps every cent: amounts and balances are bounded, and a credit an account cannot
 * take (closed, or at its limit) goes back to the sender — so no account can park its balance
 * where every transfer to it is lost.
 */
import { type Caller, ErrorCode, silentLogger } from '@baton/core';
import { type EmbeddedRuntime, startEmbedded } from '@baton/embedded';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Account, MAX_AMOUNT, MAX_BALANCE } from './bank.ts';

let runtime: EmbeddedRuntime;
beforeEach(() => {
  runtime = startEmbedded({ actors: [Account], logger: silentLogger });
});
afterEach(() => runtime.stop());

const as = (userId: string): { caller: Caller } => ({
  caller: { kind: 'user', identity: { userId, role: 'customer' } },
});
const balance = (key: string) =>
  runtime.client.asSystem().ask(Account.ref(key), 'balance', {}) as Promise<number>;

describe('the bank at its limits', () => {
  it('refuses an amount past the limit, naming it', async () => {
    await expect(
      runtime.client.ask(Account.ref('alice'), 'deposit', { amount: MAX_AMOUNT + 1 }, as('alice')),
    ).rejects.toMatchObject({ code: ErrorCode.INVALID_PAYLOAD });
  });

  it('refuses a transfer to a key no user can hold, before taking the money', async () => {
    await runtime.client.ask(Account.ref('bob'), 'deposit', { amount: 500 }, as('bob'));
    await expect(
      runtime.client.ask(Account.ref('bob'), 'transfer', { to: 'Alice ', amount: 500 }, as('bob')),
    ).rejects.toMatchObject({ code: ErrorCode.INVALID_PAYLOAD });
    expect(await balance('bob')).toBe(500);
  });

  it('sends back a transfer to an account at its balance limit: nothing is lost', async () => {
    const alice = Account.ref('alice');
    for (let held = 0; held < MAX_BALANCE; held += MAX_AMOUNT) {
      await runtime.client.send(alice, 'deposit', { amount: MAX_AMOUNT }, as('alice'));
    }
    await runtime.idle();
    expect(await balance('alice')).toBe(MAX_BALANCE);
    await expect(
      runtime.client.ask(alice, 'deposit', { amount: 1 }, as('alice')),
    ).rejects.toMatchObject({
      code: ErrorCode.REJECTED,
      message: expect.stringMatching(/past its limit/),
    });

    await runtime.client.ask(Account.ref('bob'), 'deposit', { amount: 500 }, as('bob'));
    await runtime.client.ask(
      Account.ref('bob'),
      'transfer',
      { to: 'alice', amount: 500 },
      as('bob'),
    );
    await runtime.idle();
    expect([await balance('alice'), await balance('bob')]).toEqual([MAX_BALANCE, 500]);
  });
});
