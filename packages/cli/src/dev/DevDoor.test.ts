import type { IncomingHttpHeaders } from 'node:http';
import { describe, expect, it } from 'vitest';
import { DevDoor, type DoorAnswer } from './DevDoor.ts';

const token = 'run-token-0123456789';
const door = new DevDoor({ port: 3000, token });
const json = { 'content-type': 'application/json' };
const own = { host: '127.0.0.1:3000' };

const check = (method: string, path: string, headers: IncomingHttpHeaders) =>
  door.check({ method, path, headers });
const refused = (answer: DoorAnswer) => (answer.kind === 'refuse' ? answer : undefined);

describe('DevDoor', () => {
  it('lets its own pages and clients without an Origin (curl) call the ingress', () => {
    for (const host of ['127.0.0.1:3000', 'localhost:3000', '[::1]:3000', 'LOCALHOST:3000']) {
      expect(check('POST', '/send', { host, ...json }).kind).toBe('pass');
    }
    for (const origin of door.origins) {
      expect(check('POST', '/ask', { ...own, origin, ...json })).toEqual({
        kind: 'pass',
        headers: {},
      });
    }
    expect(door.checkUpgrade({ ...own, origin: 'http://localhost:3000' }).kind).toBe('pass');
    expect(door.checkUpgrade(own).kind).toBe('pass');
  });

  it('knows its names without a port on port 80, where browsers leave it out', () => {
    const on80 = new DevDoor({ port: 80, token });
    const headers = { host: 'localhost', origin: 'http://localhost', ...json };
    expect(on80.check({ method: 'POST', path: '/ask', headers }).kind).toBe('pass');
    expect(on80.checkUpgrade({ host: '127.0.0.1:80', origin: 'http://127.0.0.1' }).kind).toBe(
      'pass',
    );
    expect(on80.checkUpgrade({ host: 'localhost', origin: 'http://localhost:8080' }).kind).toBe(
      'refuse',
    );
  });

  it('refuses a Host that is not its own, which is what DNS rebinding sends', () => {
    const answer = refused(check('POST', '/send', { host: 'attacker.example:3000', ...json }));
    expect(answer?.status).toBe(403);
    expect(answer?.message).toContain('DNS rebinding');
    expect(answer?.message).toContain('--allow-origin http://attacker.example:3000');
    // The right name on another port, and no Host at all, are foreign too.
    expect(check('GET', '/', { host: '127.0.0.1:3001' }).kind).toBe('refuse');
    expect(check('GET', '/', {}).kind).toBe('refuse');
    expect(door.checkUpgrade({ host: 'attacker.example:3000' }).kind).toBe('refuse');
  });

  it("refuses pages on other origins, another loopback port's included", () => {
    for (const origin of ['http://127.0.0.1:5555', 'https://attacker.example', 'null']) {
      const answer = refused(check('POST', '/ask', { ...own, origin, ...json }));
      expect(answer?.status).toBe(403);
      expect(refused(door.checkUpgrade({ ...own, origin }))?.status).toBe(403);
      expect(check('GET', `/outcome/x`, { ...own, origin }).kind).toBe('refuse');
    }
    expect(
      refused(check('POST', '/ask', { ...own, origin: 'http://127.0.0.1:5555', ...json }))?.message,
    ).toContain('pass --allow-origin http://127.0.0.1:5555');
  });

  it('takes bodies only as application/json: text/plain skips the CORS preflight', () => {
    const answer = refused(check('POST', '/send', { ...own, 'content-type': 'text/plain' }));
    expect(answer?.status).toBe(400);
    expect(answer?.message).toContain('content-type: application/json');
    expect(check('POST', '/send', own).kind).toBe('refuse');
    const form = { ...own, 'content-type': 'application/x-www-form-urlencoded' };
    expect(check('POST', '/_baton/crash', { ...form, 'x-baton-token': token }).kind).toBe('refuse');
    expect(
      check('POST', '/send', { ...own, 'content-type': 'Application/JSON; charset=utf-8' }).kind,
    ).toBe('pass');
  });

  it("refuses the inspector's actions without this run's token", () => {
    for (const action of ['redrive', 'crash', 'send', 'ask']) {
      const path = `/_baton/${action}`;
      const missing = refused(check('POST', path, { ...own, ...json }));
      expect(missing?.status).toBe(403);
      expect(missing?.message).toContain('x-baton-token');
      expect(check('POST', path, { ...own, ...json, 'x-baton-token': 'guess' }).kind).toBe(
        'refuse',
      );
      expect(check('POST', path, { ...own, ...json, 'x-baton-token': `${token}x` }).kind).toBe(
        'refuse',
      );
      expect(check('POST', path, { ...own, ...json, 'x-baton-token': token }).kind).toBe('pass');
    }
  });

  it("takes the app page's token for a crash only", () => {
    const withPage = new DevDoor({ port: 3000, token, pageToken: 'page-token-0123456789' });
    const headers = { ...own, ...json, 'x-baton-token': 'page-token-0123456789' };
    const at = (path: string) => withPage.check({ method: 'POST', path, headers }).kind;
    expect(at('/_baton/crash')).toBe('pass');
    for (const action of ['redrive', 'send', 'ask', 'history', 'workflow']) {
      expect(at(`/_baton/${action}`)).toBe('refuse');
    }
    // The inspector's token arms a crash too; without a page token, only it does.
    const inspector = { ...headers, 'x-baton-token': token };
    expect(withPage.check({ method: 'POST', path: '/_baton/crash', headers: inspector }).kind).toBe(
      'pass',
    );
    expect(door.check({ method: 'POST', path: '/_baton/crash', headers }).kind).toBe('refuse');
  });

  it('serves the pages that hold the token (the inspector, the app) to their own origin only', () => {
    for (const path of ['/_baton', '/']) {
      for (const site of [undefined, 'none', 'same-origin']) {
        const headers = site === undefined ? own : { ...own, 'sec-fetch-site': site };
        expect(check('GET', path, headers).kind).toBe('pass');
      }
      // A script's fetch of it, even from the app's own page, does not get it.
      for (const mode of ['cors', 'same-origin', 'no-cors']) {
        const fetched = { ...own, 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': mode };
        expect(check('GET', path, fetched).kind).toBe('refuse');
      }
      const navigated = { ...own, 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'navigate' };
      expect(check('GET', path, navigated).kind).toBe('pass');
      for (const site of ['same-site', 'cross-site']) {
        const answer = refused(check('GET', path, { ...own, 'sec-fetch-site': site }));
        expect(answer?.status).toBe(403);
      }
    }
    // The page's script holds nothing secret.
    expect(check('GET', '/page.js', { ...own, 'sec-fetch-site': 'cross-site' }).kind).toBe('pass');
  });

  it('lets an allowed other origin call the app with CORS, but not the inspector', () => {
    const vite = 'http://localhost:5173';
    const trusting = new DevDoor({ port: 3000, token, allowOrigins: [vite] });
    expect(
      trusting.check({ method: 'POST', path: '/ask', headers: { ...own, origin: vite, ...json } }),
    ).toEqual({ kind: 'pass', headers: { 'access-control-allow-origin': vite, vary: 'origin' } });
    const preflight = trusting.check({
      method: 'OPTIONS',
      path: '/ask',
      headers: { ...own, origin: vite },
    });
    expect(preflight.kind).toBe('preflight');
    expect(
      preflight.kind === 'preflight' && preflight.headers['access-control-allow-headers'],
    ).toBe('content-type');
    expect(trusting.checkUpgrade({ ...own, origin: vite }).kind).toBe('pass');
    // Its host is a name of this server now (a proxy in front of it keeps it).
    expect(
      trusting.check({ method: 'GET', path: '/', headers: { host: 'localhost:5173' } }).kind,
    ).toBe('pass');
    for (const path of ['/', '/_baton', '/_baton/redrive']) {
      const method = path === '/_baton/redrive' ? 'POST' : 'GET';
      const headers = { ...own, origin: vite, ...json, 'x-baton-token': token };
      expect(trusting.check({ method, path, headers }).kind).toBe('refuse');
    }
    expect(
      door.check({ method: 'OPTIONS', path: '/ask', headers: { ...own, origin: vite } }).kind,
    ).toBe('refuse');
  });
});
