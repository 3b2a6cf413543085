import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { appHasAuth } from './appHasAuth.ts';

const path = (relative: string) => fileURLToPath(new URL(relative, import.meta.url));

describe('appHasAuth', () => {
  it('tells an app module that exports auth from one that does not', () => {
    expect(appHasAuth(path('../../../examples/bank/src/app.ts'))).toBe(true);
    expect(appHasAuth(path('./fixtures/noAuthApp.ts'))).toBe(false);
  });

  it('cannot tell of a module that fails to load at synth, or of one that is missing', () => {
    expect(appHasAuth(path('./fixtures/failingApp.ts'))).toBeUndefined();
    expect(appHasAuth(path('./fixtures/noSuchApp.ts'))).toBeUndefined();
  });
});
