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

  it('reads every option, in either form, with an entry relative to the working directory', () => {
    const options = parseDevArgs(
      ['--port=0', entry, '--in-memory', '--log-level', 'debug', '--backend', 'embedded'],
      '/',
    );
    expect(options).toMatchObject({
      entry,
      port: 0,
      dataDir: undefined,
      backend: 'embedded',
      logLevel: 'debug',
    });
    expect(parseDevArgs([entry], '/')).toMatchObject({ port: 3000, logLevel: 'info' });
  });

  it("puts the inspector on a port of its own: the app's + 1, any free one with --port 0, or --inspector-port", () => {
    expect(parseDevArgs([entry], '/').inspectorPort).toBe(3001);
    expect(parseDevArgs([entry, '--port', '4000'], '/').inspectorPort).toBe(4001);
    expect(parseDevArgs([entry, '--port', '0'], '/').inspectorPort).toBe(0);
    expect(parseDevArgs([entry, '--inspector-port', '5000'], '/').inspectorPort).toBe(5000);
    expect(() => parseDevArgs([entry, '--inspector-port', 'x'], '/')).toThrow(
      '--inspector-port must be a port number (0–65535), got "x"',
    );
    expect(() => parseDevArgs([entry, '--port', '4000', '--inspector-port', '4000'], '/')).toThrow(
      /--inspector-port 4000 is the app's port too: the inspector needs a port of its own/,
    );
    expect(() => parseDevArgs([entry, '--port', '65535'], '/')).toThrow(
      /--port 65535 has none above it: pass --inspector-port <n> too/,
    );
  });

  it('checks types unless --typecheck off, and refuses another value', () => {
    expect(parseDevArgs([entry], '/').typeCheck).toBe(true);
    expect(parseDevArgs([entry, '--typecheck', 'off'], '/').typeCheck).toBe(false);
    expect(parseDevArgs([entry, '--typecheck=on'], '/').typeCheck).toBe(true);
    expect(() => parseDevArgs([entry, '--typecheck', 'no'], '/')).toThrow(
      '--typecheck must be on or off, got "no"',
    );
  });

  it('refuses an unknown option by name, with the usage', () => {
    expect(() => parseDevArgs([entry, '--prot', '4000'], '/')).toThrow(
      /Unknown option '--prot'[\s\S]*Usage: baton dev/,
    );
    expect(() => parseDevArgs([entry, '-x'], '/')).toThrow(/Unknown option '-x'/);
  });

  it('refuses an option without its value, a second entry and a bad port', () => {
    expect(() => parseDevArgs([entry, '--port'], '/')).toThrow(/--port <value>' argument missing/);
    expect(() => parseDevArgs([entry, entry], '/')).toThrow(/one app entry only/);
    expect(() => parseDevArgs([entry, '--port', '70000'], '/')).toThrow(/--port must be a port/);
    expect(() => parseDevArgs(['--in-memory'], '/')).toThrow(/which app\?/);
  });
});
