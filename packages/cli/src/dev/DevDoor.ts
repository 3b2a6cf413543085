import type { IncomingHttpHeaders } from 'node:http';
import { sameSecret } from './secrets.ts';

/** The header that carries this run's inspector token on the inspector's actions. */
export const TOKEN_HEADER = 'x-baton-token';

/** What {@link DevDoor.check} looks at: a request's method, URL path and headers. */
export interface DoorRequest {
  readonly method: string;
  /** The URL's path, e.g. `/send`. */
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
}

/**
 * The door's answer: `pass` (adding `headers` to the answer: CORS for an allowed other origin),
 * `preflight` (answer 204 with `headers`), or `refuse` with a status and what to do.
 */
export type DoorAnswer =
  | { readonly kind: 'pass' | 'preflight'; readonly headers: Readonly<Record<string, string>> }
  | { readonly kind: 'refuse'; readonly status: 400 | 403; readonly message: string };

export interface DevDoorOptions {
  /** The port `baton dev` listens on (127.0.0.1). */
  readonly port: number;
  /** Other origins trusted to call it (`--allow-origin`), as `URL.origin`s. */
  readonly allowOrigins?: readonly string[];
  /** This run's inspector token. */
  readonly token: string;
  /**
   * The app page's token: it arms a crash (`POST /_baton/crash`) and nothing else. The app's
   * page is where its users sign in, so it holds no token that acts as trusted code.
   */
  readonly pageToken?: string;
}

/**
 * Who may call `baton dev`, checked on every HTTP request and WebSocket upgrade before anything
 * is served or forwarded. A browser sends a request wherever any page tells it to, so:
 * - `Host` must name the server itself (127.0.0.1, localhost or [::1] with its port, or an
 *   allowed origin's host): a foreign name that resolves here is DNS rebinding.
 * - `Origin`, when there is one, must be the server's own or an allowed one. Without one (curl,
 *   server-to-server) a request passes on a right `Host`.
 * - A body comes as `application/json`: a `text/plain` POST is a "simple" cross-origin request
 *   that a browser sends without asking first.
 * - The pages that embed a token (the app's page and the inspector's) are served to their own
 *   origin only; the inspector's actions (`POST /_baton/…`) carry its token in
 *   {@link TOKEN_HEADER}. The app's page holds another, which arms a crash and nothing else.
 *
 * @example
 * const door = new DevDoor({ port: 3000, token });
 * const answer = door.check({ method: 'POST', path: '/send', headers: request.headers });
 * if (answer.kind === 'refuse') response.writeHead(answer.status).end(answer.message);
 */
export class DevDoor {
  /** The server's own origins, the address-bar one first. */
  readonly origins: readonly string[];
  readonly #hosts: ReadonlySet<string>;
  readonly #others: ReadonlySet<string>;
  readonly #token: string;
  readonly #pageToken: string | undefined;

  constructor(options: DevDoorOptions) {
    const names = ['127.0.0.1', 'localhost', '[::1]'];
    // On port 80 a browser leaves the port out of both headers.
    const own = names.map((name) => (options.port === 80 ? name : `${name}:${options.port}`));
    this.origins = own.map((host) => `http://${host}`);
    this.#others = new Set(options.allowOrigins ?? []);
    this.#hosts = new Set([
      ...own,
      ...(options.port === 80 ? names.map((name) => `${name}:80`) : []),
      ...[...this.#others].map((origin) => new URL(origin).host),
    ]);
    this.#token = options.token;
    this.#pageToken = options.pageToken;
  }

  /** The answer to an HTTP request. */
  check(request: DoorRequest): DoorAnswer {
    const { method, path, headers } = request;
    const who = this.#who(headers);
    if (who.kind === 'refuse') return who;
    const inspector = path === '/_baton' || path.startsWith('/_baton/');
    const tokenPage = path === '/' || path === '/_baton' || path === '/_baton/';
    if ((inspector || tokenPage) && who.other) {
      return refuse(
        403,
        `${path} is for baton dev's own pages (${this.#home}), not for pages on ${header(headers, 'origin')}`,
      );
    }
    const cors: Record<string, string> = who.other
      ? { 'access-control-allow-origin': who.other, vary: 'origin' }
      : {};
    if (method === 'OPTIONS' && who.other) {
      return {
        kind: 'preflight',
        headers: {
          ...cors,
          'access-control-allow-methods': 'GET, POST',
          'access-control-allow-headers': 'content-type',
          'access-control-max-age': '600',
        },
      };
    }
    if (method === 'GET' && tokenPage && !sameOriginNavigation(headers)) {
      return refuse(
        403,
        `${path} holds this run's token, so it opens only from its own address: type ${this.#home}${path} in the address bar`,
      );
    }
    if (method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS') {
      const type = header(headers, 'content-type');
      if (mediaType(type) !== 'application/json') {
        return refuse(
          400,
          `a ${method} body must be JSON sent with content-type: application/json (this one came ${type === undefined ? 'without a content type' : `as ${type}`}), e.g. curl -X POST ${this.#home}/ask -H 'content-type: application/json' -d '{"to": "type/key", "name": "message", "payload": {}}'`,
        );
      }
      const token = header(headers, TOKEN_HEADER);
      const crash = path === '/_baton/crash' && this.#pageToken !== undefined;
      if (
        inspector &&
        !sameSecret(token, this.#token) &&
        !(crash && sameSecret(token, this.#pageToken))
      ) {
        return refuse(
          403,
          `the inspector's actions need this run's token in the ${TOKEN_HEADER} header: use them from the inspector (${this.#home}/_baton), whose page carries it in <meta name="baton-token">`,
        );
      }
    }
    return { kind: 'pass', headers: cors };
  }

  /** The answer to a WebSocket upgrade (a browser always sends its page's `Origin` with one). */
  checkUpgrade(headers: IncomingHttpHeaders): DoorAnswer {
    const who = this.#who(headers);
    return who.kind === 'refuse' ? who : { kind: 'pass', headers: {} };
  }

  get #home(): string {
    return this.origins[0]!;
  }

  /** Checks `Host` and `Origin`; `other` is the origin when it is an allowed other one. */
  #who(
    headers: IncomingHttpHeaders,
  ): { kind: 'pass'; other: string | undefined } | (DoorAnswer & { kind: 'refuse' }) {
    const host = header(headers, 'host')?.toLowerCase();
    if (host === undefined || !this.#hosts.has(host)) {
      return refuse(
        403,
        `baton dev answers only to ${[...this.#hosts].join(', ')}, not to ${host === undefined ? 'a request without a Host' : `the name ${host}`} (a page elsewhere may have pointed that name at this machine: DNS rebinding). Browse to ${this.#home}/, or pass --allow-origin http://${host ?? '<name>:<port>'} to trust that name.`,
      );
    }
    const origin = header(headers, 'origin');
    if (origin === undefined || this.origins.includes(origin)) {
      return { kind: 'pass', other: undefined };
    }
    if (this.#others.has(origin)) return { kind: 'pass', other: origin };
    return refuse(
      403,
      origin === 'null'
        ? `baton dev refuses pages without an origin (a sandboxed frame, a file://): open the page from ${this.#home}/`
        : `baton dev refuses requests from pages on ${origin}: only its own pages (${this.#home}) may call it. If that page is yours, pass --allow-origin ${origin}.`,
    );
  }
}

function refuse(status: 400 | 403, message: string): DoorAnswer & { kind: 'refuse' } {
  return { kind: 'refuse', status, message };
}

/** `application/json` of `Application/JSON; charset=utf-8`. */
function mediaType(contentType: string | undefined): string | undefined {
  return contentType?.split(';')[0]?.trim().toLowerCase();
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * Whether a browser loads the page as a page, for its own origin or the address bar: Chromium
 * and Firefox say so in `Sec-Fetch-Site` and `Sec-Fetch-Mode`; a request without the first is
 * not a browser's. A script's fetch of it is refused even from the app's own page, so that a script
 * there (an app's bug, say) cannot read the inspector's token.
 */
function sameOriginNavigation(headers: IncomingHttpHeaders): boolean {
  const site = header(headers, 'sec-fetch-site');
  if (site === undefined) return true;
  // Node's fetch sends a mode alone; a browser, both.
  const mode = header(headers, 'sec-fetch-mode');
  return (site === 'same-origin' || site === 'none') && (mode === undefined || mode === 'navigate');
}
