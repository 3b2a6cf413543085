/**
 * Asking before a destructive action: with `--yes` it goes on; declined on the terminal, it is
 * cancelled (exit 1: the operator said no); with no terminal to ask, it is refused as a usage
 * error (exit 2: pass --yes).
 */
import { BatonError, ErrorCode } from '@baton/core';
import { describe, expect, it } from 'vitest';
import { OpsContext } from './OpsContext.ts';
import type { OpsIo } from './OpsIo.ts';

const io = (answer?: boolean): OpsIo => ({
  out: () => {},
  err: () => {},
  env: {},
  now: () => 0,
  ...(answer === undefined ? {} : { confirm: async () => answer }),
});
const asked = (answer: boolean | undefined, yes = false) =>
  new OpsContext(io(answer), { operator: 'ops', ...(yes ? { yes } : {}) }, []).confirm('purge?');

describe('OpsContext.confirm', () => {
  it('goes on with --yes, or a yes on the terminal', async () => {
    await expect(asked(undefined, true)).resolves.toBeUndefined();
    await expect(asked(true)).resolves.toBeUndefined();
  });

  it('is cancelled when the operator declines, changing nothing', async () => {
    const declined = await asked(false).catch((error: unknown) => error);
    expect(declined).toBeInstanceOf(BatonError);
    expect(declined).toMatchObject({
      code: ErrorCode.CANCELLED,
      message: 'not confirmed: nothing was changed',
    });
  });

  it('is refused as a usage error with no terminal to ask', async () => {
    await expect(asked(undefined)).rejects.toMatchObject({
      code: ErrorCode.INVALID_ARGUMENT,
      message: 'purge? — refused without a terminal to ask: pass --yes to confirm',
    });
  });
});
