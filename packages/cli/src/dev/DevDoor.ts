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
 * `preflight` (answer 204 with `headers`), or `refuse` with a status and what to do (404: the
 * path is the other port's, whose address the message gives).
 */
export type DoorAnswer =
  | { readonly kind: 'pass' | 'preflight'; readonly headers: Readonly<Record<string, string>> }
  | { readonly kind: 'refuse'; readonly status: 400 | 403 | 404; readonly message: string };

/**
 * `baton dev` listens on two ports, a door on each: the app's (its page, the WebSocket, the
 * ingress) and the inspector's. Two ports are two origins, so no script on the app's page can
 * read the inspector's page and its token, not even in a window it opened itself.
 */
export type DevDoorOptions = AppDoorOptions | InspectorDoorOptions;

/** The app's port: its page, the WebSocket, the HTTP ingress. */
export interface AppDoorOptions {
  readonly serves: 'app';
  /** The port it listens on (127.0.0.1). */
  readonly port: number;
  /** Other origins trusted to call it (`--allow-origin`), as `URL.origin`s. */
  readonly allowOrigins?: readonly string[];
  /**
   * The app page's token: it arms a crash (`POST /_baton/crash`) and nothing else. The app's
   * page is where its users sign in, so it holds no token that acts as trusted code.
   */
  readonly pageToken: string;
  /** The inspector's address (`http://127.0.0.1:<its port>/`), named where this port refuses it. */
  readonly inspectorUrl: string;
}

/** The inspector's port: its page, its script, its actions and its live query's WebSocket. */
export interface InspectorDoorOptions {
  readonly serves: 'inspector';
  /** The port it listens on (127.0.0.1). */
  readonly port: number;
  /** This run's inspector token, which its actions carry in {@link TOKEN_HEADER}. */
  readonly token: string;
  /** The app's address (`http://127.0.0.1:<its port>/`), named where this port refuses it. */
  readonly appUrl: string;
}

/**
 * Who may call `baton dev`, checked on every HTTP request and WebSocket upgrade before anything
 * is served or forwarded. A browser sends a request wherever any page tells it to, so:
 * - `Host` must name the server itself (127.0.0.1, localhost or [::1] with its port, or an
 *   allowed origin's host): a foreign name that resolves here is DNS rebinding.
 * - `Origin`, when there is one, must be the port's own or (on the app's port) an allowed one.
 *   Without one (curl, server-to-server) a request passes on a right `Host`.
 * - A body comes as `application/json`: a `text/plain` POST is a "simple" cross-origin request
 *   that a browser sends without asking first.
 * - Each port serves its own paths only, and names the other's address for the rest: the app's
 *   port keeps of `/_baton/…` only the app page's crash switch and `GET /_baton/target` (for
 *   `baton --local`); the inspector's port serves the inspector alone.
 * - The pages that embed a token (the app's page and the inspector's) are served as pages only;
 *   the inspector's actions (`POST /_baton/…`) carry its token in {@link TOKEN_HEADER}. The
 *   app's page holds another, which arms a crash and nothing else.
 *
 * @example
 * const door = new DevDoor({ serves: 'app', port: 3000, pageToken, inspectorUrl: 'http://127.0.0.1:3001/' });
 * const answer = door.check({ method: 'POST', path: '/send', headers: request.headers });
 * if (answer.kind === 'refuse') response.writeHead(answer.status).end(answer.message);
 */
export class DevDoor {
  /** The server's own origins, the address-bar one first. */
  readonly origins: readonly string[];
  readonly #options: DevDoorOptions;
  readonly #hosts: ReadonlySet<string>;
  readonly #others: ReadonlySet<string>;

  constructor(options: DevDoorOptions) {
    const names = ['127.0.0.1', 'localhost', '[::1]'];
    // On port 80 a browser leaves the port out of both headers.
    const own = names.map((name) => (options.port === 80 ? name : `${name}:${options.port}`));
    this.origins = own.map((host) => `http://${host}`);
    this.#options = options;
    // --allow-origin trusts front ends with the app, never with the inspector.
    this.#others = new Set(options.serves === 'app' ? (options.allowOrigins ?? []) : []);
    this.#hosts = new Set([
      ...own,
      ...(options.port === 80 ? names.map((name) => `${name}:80`) : []),
      ...[...this.#others].map((origin) => new URL(origin).host),
    ]);
  }

  /** The answer to an HTTP request. */
  check(request: DoorRequest): DoorAnswer {
    const who = this.#who(request.headers);
    if (who.kind === 'refuse') return who;
    return this.#options.serves === 'app'
      ? this.#checkApp(request, who.other, this.#options)
      : this.#checkInspector(request, this.#options);
  }

  /** The answer to a WebSocket upgrade (a browser always sends its page's `Origin` with one). */
  checkUpgrade(headers: IncomingHttpHeaders): DoorAnswer {
    const who = this.#who(headers);
    return who.kind === 'refuse' ? who : { kind: 'pass', headers: {} };
  }

  /** The app's port: anything but the inspector; `other` is an allowed other origin. */
  #checkApp(request: DoorRequest, other: string | undefined, options: AppDoorOptions): DoorAnswer {
    const { method, path, headers } = request;
    const underBaton = path === '/_baton' || path.startsWith('/_baton/');
    const crash = method === 'POST' && path === '/_baton/crash';
    const target = method === 'GET' && path === '/_baton/target';
    if (underBaton && !crash && !target) {
      return refuse(
        404,
        `${path} is not on the app's port: the inspector has a port of its own, out of reach of the scripts on the app's page. Open ${options.inspectorUrl}`,
      );
    }
    const tokenPage = path === '/';
    if ((underBaton || tokenPage) && other) {
      return refuse(
        403,
        `${path} is for baton dev's own pages (${this.#home}), not for pages on ${header(headers, 'origin')}`,
      );
    }
    const cors: Record<string, string> = other
      ? { 'access-control-allow-origin': other, vary: 'origin' }
      : {};
    if (method === 'OPTIONS' && other) {
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
    if (method === 'GET' && tokenPage && !navigation(headers, false)) {
      return refuse(
        403,
        `${path} holds this run's crash token, so it opens only from its own address: type ${this.#home}${path} in the address bar`,
      );
    }
    const body = this.#checkBody(method, headers);
    if (body) return body;
    if (crash && !sameSecret(header(headers, TOKEN_HEADER), options.pageToken)) {
      return refuse(
        403,
        `a crash on the app's port needs the app page's token (its <meta name="baton-crash-token">) in the ${TOKEN_HEADER} header; the inspector (${options.inspectorUrl}) arms one with its own`,
      );
    }
    return { kind: 'pass', headers: cors };
  }

  /** The inspector's port: its page (at `/` and `/_baton`), its script and its actions. */
  #checkInspector(request: DoorRequest, options: InspectorDoorOptions): DoorAnswer {
    const { method, path, headers } = request;
    const page = path === '/' || path === '/_baton' || path === '/_baton/';
    const script = path === '/_baton/inspector.js';
    const action = method === 'POST' && path.startsWith('/_baton/');
    if (!(method === 'GET' && (page || script)) && !action) {
      return refuse(
        404,
        `this is the inspector's port, and ${method} ${path} is not the inspector's: the app (its page, WebSocket and ingress) is at ${options.appUrl}`,
      );
    }
    if (page && !navigation(headers, true)) {
      return refuse(
        403,
        `${path} holds this run's inspector token, so it opens only as a page: type ${this.#home}/ in the address bar`,
      );
    }
    const body = this.#checkBody(method, headers);
    if (body) return body;
    if (action && !sameSecret(header(headers, TOKEN_HEADER), options.token)) {
      return refuse(
        403,
        `the inspector's actions need this run's token in the ${TOKEN_HEADER} header: use them from the inspector (${this.#home}/), whose page carries it in <meta name="baton-token">`,
      );
    }
    return { kind: 'pass', headers: {} };
  }

  /** The refusal of a body that is not JSON; undefined for one that is, or none. */
  #checkBody(method: string, headers: IncomingHttpHeaders): DoorAnswer | undefined {
    if (method === 'GET' || method === 'HEAD' || method === 'OPTIONS') return undefined;
    const type = header(headers, 'content-type');
    if (mediaType(type) === 'application/json') return undefined;
    const example =
      this.#options.serves === 'app'
        ? `curl -X POST ${this.#home}/ask -H 'content-type: application/json' -d '{"to": "type/key", "name": "message", "payload": {}}'`
        : `curl -X POST ${this.#home}/_baton/history -H 'content-type: application/json' -H '${TOKEN_HEADER}: <token>' -d '{"actorId": "type/key"}'`;
    return refuse(
      400,
      `a ${method} body must be JSON sent with content-type: application/json (this one came ${type === undefined ? 'without a content type' : `as ${type}`}), e.g. ${example}`,
    );
  }

  get #home(): string {
    return this.origins[0]!;
  }

  /** Checks `Host` and `Origin`; `other` is the origin when it is an allowed other one. */
  #who(
    headers: IncomingHttpHeaders,
  ): { kind: 'pass'; other: string | undefined } | (DoorAnswer & { kind: 'refuse' }) {
    const inspector = this.#options.serves === 'inspector';
    const host = header(headers, 'host')?.toLowerCase();
    if (host === undefined || !this.#hosts.has(host)) {
      return refuse(
        403,
        `baton dev${inspector ? "'s inspector" : ''} answers only to ${[...this.#hosts].join(', ')}, not to ${host === undefined ? 'a request without a Host' : `the name ${host}`} (a page elsewhere may have pointed that name at this machine: DNS rebinding). Browse to ${this.#home}/${inspector ? '' : `, or pass --allow-origin http://${host ?? '<name>:<port>'} to trust that name`}.`,
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
        : inspector
          ? `baton dev's inspector refuses requests from pages on ${origin}: only its own page (${this.#home}/) may call it`
          : `baton dev refuses requests from pages on ${origin}: only its own pages (${this.#home}) may call it. If that page is yours, pass --allow-origin ${origin}.`,
    );
  }
}

function refuse(status: 400 | 403 | 404, message: string): DoorAnswer & { kind: 'refuse' } {
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
 * Whether a browser loads the page as a page (`Sec-Fetch-Mode: navigate`), typed in the address
 * bar (`Sec-Fetch-Site: none`) or from its own origin — or, with `sameSite`, from a page on
 * another port of this machine: the app's page links to the inspector, which opens on the
 * inspector's own origin, in a window the app's page cannot read. Chromium and Firefox send
 * both headers; a request without `Sec-Fetch-Site` is not a browser's. A script's fetch of the
 * page is refused, even from its own origin.
 *
 * That is not what keeps the inspector's token from the scripts on the app's page (an app's bug,
 * say): a script may open any page of its own origin in a window and read it. What does is the
 * inspector's port of its own: another origin, whose window the app's page cannot look into.
 */
function navigation(headers: IncomingHttpHeaders, sameSite: boolean): boolean {
  const site = header(headers, 'sec-fetch-site');
  if (site === undefined) return true;
  // Node's fetch sends a mode alone; a browser, both.
  const mode = header(headers, 'sec-fetch-mode');
  const from = site === 'same-origin' || site === 'none' || (sameSite && site === 'same-site');
  return from && (mode === undefined || mode === 'navigate');
}
