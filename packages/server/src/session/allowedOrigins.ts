/**
 * Which web pages may open a WebSocket to a host. A browser connects wherever any page it shows
 * tells it to, and always names that page's origin in the upgrade's `Origin` header: a host
 * that serves every page lets a foreign site, open in a user's browser, connect as that browser
 * (cross-site WebSocket hijacking), reaching a server on loopback or one whose `auth` reads a
 * cookie. A client that is no browser (Node's `ws`, a CLI) sends no `Origin` and is not checked.
 */
import { BatonError, ErrorCode } from '@baton/core';

/**
 * The page origins (`scheme://host[:port]`, e.g. `http://localhost:5173`) allowed to open a
 * WebSocket, or a function deciding for each one (`'null'` for a sandboxed frame or a file).
 *
 * @example
 * const allowedOrigins: AllowedOrigins = ['http://localhost:5173', 'https://app.example.com'];
 */
export type AllowedOrigins = readonly string[] | ((origin: string) => boolean);

/**
 * A checked {@link AllowedOrigins}: `allows(origin)`, and the origins it lists (none for a
 * function), for a refusal to name.
 *
 * @example
 * const check = originCheck(['http://localhost:5173']);
 * check.allows('http://localhost:5173'); // true
 */
export interface OriginCheck {
  allows(origin: string): boolean;
  readonly listed: readonly string[] | undefined;
}

/**
 * Checks `allowedOrigins` (a problem goes to `problems`, an entry that is no origin among them,
 * each naming the setting as `name`) and builds its check: listed origins compare as browsers
 * send them (`HTTP://LocalHost:80/` is `http://localhost`).
 *
 * @example
 * const problems: string[] = [];
 * const check = originCheck(options.allowedOrigins ?? [], problems);
 */
export function originCheck(
  allowed: AllowedOrigins,
  problems: string[] = [],
  name = 'allowedOrigins',
): OriginCheck {
  if (typeof allowed === 'function') {
    return { allows: (origin) => allowed(origin) === true, listed: undefined };
  }
  if (!Array.isArray(allowed)) {
    problems.push(
      `${name} must be a list of origins (['http://localhost:5173']) or a function (origin) => boolean`,
    );
    return { allows: () => false, listed: [] };
  }
  const listed: string[] = [];
  for (const entry of allowed) {
    const origin = originOf(entry);
    if (origin === undefined) {
      problems.push(
        `${name} holds ${JSON.stringify(entry)}, which is no origin: give scheme://host[:port], e.g. 'http://localhost:5173'`,
      );
    } else if (!listed.includes(origin)) listed.push(origin);
  }
  const set = new Set(listed);
  return { allows: (origin) => set.has(originOf(origin) ?? origin), listed };
}

/**
 * The origins of a server on this machine at `port`, as a page it serves names them:
 * `http://localhost:<port>`, `http://127.0.0.1:<port>` and `http://[::1]:<port>`, and
 * `http://<host>:<port>` when it listens on another name or address than the loopback or
 * every address.
 *
 * @example
 * loopbackOrigins(8787); // ['http://localhost:8787', 'http://127.0.0.1:8787', 'http://[::1]:8787']
 */
export function loopbackOrigins(port: number, host = '127.0.0.1'): string[] {
  const name = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  const own = LOOPBACK.includes(name) || EVERY_ADDRESS.includes(name) ? [] : [name];
  return [...LOOPBACK, ...own].map((each) => new URL(`http://${each}:${port}`).origin);
}

/** The names of this machine, as a URL writes them. */
const LOOPBACK = ['localhost', '127.0.0.1', '[::1]'];
/** The hosts that listen on every address: no page names them. */
const EVERY_ADDRESS = ['0.0.0.0', '[::]'];

/**
 * The refusal of an upgrade from a page on `origin`, saying which setting lets it in: `setting`
 * names it as the host's users write it (the server's option, a construct's prop).
 *
 * @example
 * throw originRefused('https://evil.example', check, "the server's allowedOrigins option");
 */
export function originRefused(origin: string, check: OriginCheck, setting: string): BatonError {
  const who =
    check.listed === undefined
      ? 'its allowedOrigins function refused it'
      : `only pages on ${check.listed.join(', ') || 'no origin'} may`;
  return new BatonError(
    ErrorCode.FORBIDDEN,
    `this server refused a WebSocket from a page on ${origin}: ${who} (a page on another site must not connect as its visitor's browser). If that page is yours, add ${JSON.stringify(origin)} to ${setting}.`,
    { details: { origin } },
  );
}

/** `value` as a browser's `Origin` names it, or `undefined` when it is no origin. */
function originOf(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  if (value === 'null') return value;
  try {
    const url = new URL(value);
    const bare = url.pathname === '/' && url.search === '' && url.hash === '';
    return bare && url.origin !== 'null' && url.username === '' ? url.origin : undefined;
  } catch {
    return undefined;
  }
}
