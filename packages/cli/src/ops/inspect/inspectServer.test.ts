/**
 * `baton inspect`'s answers may not be framed by another page: its page carries the token its
 * actions need, and a page that frames it could click them.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Target } from '../target.ts';
import { type RunningInspector, startInspector } from './inspectServer.ts';

const running: RunningInspector[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((inspector) => inspector.close()));
});

async function inspector(): Promise<RunningInspector> {
  const started = await startInspector({
    // The page and its script read only the table's name.
    target: { names: { table: 'baton-test' } } as Target,
    allowActions: true,
    operator: async () => 'test',
    audit: async () => {},
  });
  running.push(started);
  return started;
}

describe('baton inspect headers', () => {
  it.each(['/_baton', '/_baton/inspect.js', '/_baton/api/nothing'])(
    'forbids framing %s and keeps it out of caches',
    async (path) => {
      const { url } = await inspector();
      const response = await fetch(new URL(path, url));
      await response.text();
      expect(response.headers.get('content-security-policy')).toBe("frame-ancestors 'none'");
      expect(response.headers.get('x-frame-options')).toBe('DENY');
      expect(response.headers.get('cache-control')).toBe('no-store');
    },
  );

  it('serves its page with the token its actions need', async () => {
    const { url, token } = await inspector();
    const response = await fetch(url);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await response.text()).toContain(`<meta name="baton-token" content="${token}">`);
  });
});
