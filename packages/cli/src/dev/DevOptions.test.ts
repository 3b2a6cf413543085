import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseDevArgs } from './DevOptions.ts';

const entry = fileURLToPath(
  new URL('../../../../tests/dev/fixtures/counter/src/app.ts', import.meta.url),
);

describe('parseDevArgs', () => {
  it('trusts no other origin by default, and each --allow-origin given, as an origin', () => {
    expect(parseDevArgs([entry], '/').allowOrigins).toEqual([]);
    const options = parseDevArgs(
      [entry, '--allow-origin', 'http://LOCALHOST:5173/', '--allow-origin=https://app.test'],
      '/',
    );
    expect(options.allowOrigins).toEqual(['http://localhost:5173', 'https://app.test']);
  });

  it('refuses an --allow-origin that is not an origin, saying what one looks like', () => {
    for (const text of ['localhost:5173', 'http://localhost:5173/app', 'file:///tmp', '*']) {
      expect(() => parseDevArgs([entry, '--allow-origin', text], '/')).toThrow(
        /--allow-origin takes an origin such as http:\/\/localhost:5173/,
      );
    }
  });
});
