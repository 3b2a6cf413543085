import { describe, expect, it } from 'vitest';
import { loopbackOrigins, originCheck } from './allowedOrigins.ts';

describe('allowed origins', () => {
  it("names a server's own origins by every loopback name, and by the host it listens on", () => {
    const loopback = ['http://localhost:8787', 'http://127.0.0.1:8787', 'http://[::1]:8787'];
    for (const host of ['127.0.0.1', 'localhost', '::1', '0.0.0.0', '::']) {
      expect(loopbackOrigins(8787, host)).toEqual(loopback);
    }
    expect(loopbackOrigins(8787, 'devbox.local')).toEqual([
      ...loopback,
      'http://devbox.local:8787',
    ]);
    expect(loopbackOrigins(8787, 'fd00::1')).toEqual([...loopback, 'http://[fd00::1]:8787']);
    // A browser leaves out port 80.
    expect(loopbackOrigins(80)).toEqual(['http://localhost', 'http://127.0.0.1', 'http://[::1]']);
  });

  it('compares listed origins as a browser writes them', () => {
    const check = originCheck(['HTTP://LocalHost:5173/', 'https://app.example.com:443']);
    expect(check.listed).toEqual(['http://localhost:5173', 'https://app.example.com']);
    expect(check.allows('http://localhost:5173')).toBe(true);
    expect(check.allows('https://app.example.com')).toBe(true);
    expect(check.allows('http://localhost:5174')).toBe(false);
    expect(check.allows('https://app.example.com.evil.example')).toBe(false);
  });
});
