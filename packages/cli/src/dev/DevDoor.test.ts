import type { IncomingHttpHeaders } from 'node:http';
import { describe, expect, it } from 'vitest';
import { DevDoor, type DoorAnswer } from './DevDoor.ts';

const token = 'run-token-0123456789';
const pageToken = 'page-token-0123456789';
const INSPECTOR_URL = 'http://127.0.0.1:3001/';
const APP_URL = 'http://127.0.0.1:3000/';
const appDoor = (port = 3000, allowOrigins: string[] = []) =>
  new DevDoor({ serves: 'app', port, allowOrigins, pageToken, inspectorUrl: INSPECTOR_URL });
const door = appDoor();
const inspectorDoor = new DevDoor({ serves: 'inspector', port: 3001, token, appUrl: APP_URL });
const json = { 'content-type': 'application/json' };
const own = { host: '127.0.0.1:3000' };
const ownInspector = { host: '127.0.0.1:3001' };

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
    const on80 = appDoor(80);
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
    expect(check('POST', '/_baton/crash', { ...form, 'x-baton-token': pageToken }).kind).toBe(
      'refuse',
    );
    const inspectorForm = { ...ownInspector, 'content-type': 'text/plain', 'x-baton-token': token };
    expect(
      inspectorDoor.check({ method: 'POST', path: '/_baton/send', headers: inspectorForm }).kind,
    ).toBe('refuse');
    expect(
      check('POST', '/send', { ...own, 'content-type': 'Application/JSON; charset=utf-8' }).kind,
    ).toBe('pass');
  });

  it("refuses the inspector's actions without this run's token", () => {
    const at = (path: string, headers: IncomingHttpHeaders) =>
      inspectorDoor.check({ method: 'POST', path, headers });
    for (const action of ['redrive', 'crash', 'send', 'ask', 'history', 'workflow']) {
      const path = `/_baton/${action}`;
      const missing = refused(at(path, { ...ownInspector, ...json }));
      expect(missing?.status).toBe(403);
      expect(missing?.message).toContain('x-baton-token');
      for (const guess of ['guess', `${token}x`, pageToken]) {
        expect(at(path, { ...ownInspector, ...json, 'x-baton-token': guess }).kind).toBe('refuse');
      }
      expect(at(path, { ...ownInspector, ...json, 'x-baton-token': token }).kind).toBe('pass');
    }
  });

  it("keeps the inspector off the app's port, naming where it is, but for the page's crash switch", () => {
    for (const [method, path] of [
      ['GET', '/_baton'],
      ['GET', '/_baton/'],
      ['GET', '/_baton/inspector.js'],
      ['POST', '/_baton/send'],
      ['POST', '/_baton/ask'],
      ['POST', '/_baton/redrive'],
      ['POST', '/_baton/history'],
      ['POST', '/_baton/workflow'],
    ] as const) {
      for (const tokenHeld of [token, pageToken]) {
        const answer = refused(
          check(method, path, {
            ...own,
            ...json,
            'sec-fetch-site': 'none',
            'x-baton-token': tokenHeld,
          }),
        );
        expect(answer?.status, `${method} ${path}`).toBe(404);
        expect(answer?.message).toContain(`Open ${INSPECTOR_URL}`);
      }
    }
    // baton --local's names of the emulators, which are no secret.
    expect(check('GET', '/_baton/target', own).kind).toBe('pass');
  });

  it("takes the app page's token for a crash on the app's port, and no other", () => {
    const at = (tokenHeld: string | undefined) =>
      check('POST', '/_baton/crash', {
        ...own,
        ...json,
        ...(tokenHeld === undefined ? {} : { 'x-baton-token': tokenHeld }),
      });
    expect(at(pageToken).kind).toBe('pass');
    for (const other of [undefined, token, 'guess']) {
      expect(refused(at(other))?.message).toContain('baton-crash-token');
    }
  });

  it("serves only the inspector on the inspector's port, naming where the app is", () => {
    for (const [method, path] of [
      ['POST', '/send'],
      ['POST', '/ask'],
      ['GET', '/outcome/x'],
      ['POST', '/workflows/greet/start'],
      ['GET', '/page.js'],
      ['GET', '/_baton/target'],
      ['GET', '/_baton/history'],
    ] as const) {
      const answer = refused(
        inspectorDoor.check({
          method,
          path,
          headers: { ...ownInspector, ...json, 'x-baton-token': token },
        }),
      );
      expect(answer?.status, `${method} ${path}`).toBe(404);
      expect(answer?.message).toContain(APP_URL);
    }
    for (const path of ['/', '/_baton', '/_baton/inspector.js']) {
      expect(inspectorDoor.check({ method: 'GET', path, headers: ownInspector }).kind).toBe('pass');
    }
  });

  it("checks Host and Origin against the inspector's own origin, and trusts no other", () => {
    const at = (headers: IncomingHttpHeaders) =>
      inspectorDoor.check({ method: 'GET', path: '/', headers });
    expect(at({ host: 'localhost:3001', origin: 'http://localhost:3001' }).kind).toBe('pass');
    // The app's own origin is another one: its page's scripts may not call the inspector.
    for (const origin of ['http://127.0.0.1:3000', 'http://localhost:5173', 'null']) {
      expect(refused(at({ ...ownInspector, origin }))?.status).toBe(403);
      expect(inspectorDoor.checkUpgrade({ ...ownInspector, origin }).kind).toBe('refuse');
    }
    expect(refused(at({ host: '127.0.0.1:3000' }))?.message).toContain('DNS rebinding');
    expect(refused(at({ host: 'rebound.example:3001' }))?.status).toBe(403);
    expect(
      inspectorDoor.checkUpgrade({ ...ownInspector, origin: 'http://127.0.0.1:3001' }).kind,
    ).toBe('pass');
  });

  it('serves the pages that hold a token (the inspector, the app) as pages only', () => {
    const cases = [
      [door, '/', own],
      [inspectorDoor, '/', ownInspector],
      [inspectorDoor, '/_baton', ownInspector],
    ] as const;
    for (const [which, path, host] of cases) {
      const at = (headers: IncomingHttpHeaders) =>
        which.check({ method: 'GET', path, headers: { ...host, ...headers } }).kind;
      for (const site of [undefined, 'none', 'same-origin']) {
        expect(at(site === undefined ? {} : { 'sec-fetch-site': site })).toBe('pass');
      }
      // A script's fetch of it, even from its own origin, does not get it.
      for (const mode of ['cors', 'same-origin', 'no-cors']) {
        expect(at({ 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': mode })).toBe('refuse');
        expect(at({ 'sec-fetch-site': 'same-site', 'sec-fetch-mode': mode })).toBe('refuse');
      }
      expect(at({ 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'navigate' })).toBe('pass');
      expect(at({ 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' })).toBe('refuse');
    }
    // The app's page links to the inspector, another port of the same site: it opens, in a
    // window the app's page cannot read.
    const linked = { ...ownInspector, 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'navigate' };
    expect(inspectorDoor.check({ method: 'GET', path: '/', headers: linked }).kind).toBe('pass');
    expect(check('GET', '/', { ...own, 'sec-fetch-site': 'same-site' }).kind).toBe('refuse');
    // The page's script holds nothing secret.
    expect(check('GET', '/page.js', { ...own, 'sec-fetch-site': 'cross-site' }).kind).toBe('pass');
  });

  it('lets an allowed other origin call the app with CORS, but not the inspector', () => {
    const vite = 'http://localhost:5173';
    const trusting = appDoor(3000, [vite]);
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
    for (const path of ['/', '/_baton', '/_baton/crash']) {
      const method = path === '/_baton/crash' ? 'POST' : 'GET';
      const headers = { ...own, origin: vite, ...json, 'x-baton-token': pageToken };
      expect(trusting.check({ method, path, headers }).kind).toBe('refuse');
    }
    expect(
      door.check({ method: 'OPTIONS', path: '/ask', headers: { ...own, origin: vite } }).kind,
    ).toBe('refuse');
  });
});
