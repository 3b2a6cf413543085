import type { IncomingMessage } from 'node:http';
import type { WebSocket } from 'ws';

/** The close code of a connection whose client left its frames unread (the local server's too). */
const NOT_READING = 4413;

/** What every connection of a `LocalWebSocketGateway` is held to. */
export interface ConnectionSettings {
  /** A connection without a message either way for this long is closed. */
  readonly idleTimeoutMs: number;
  /** Every connection is closed after this long. */
  readonly maxConnectionMs: number;
  /** Bytes posted that may wait unread in a connection's socket (see {@link GatewayConnection}). */
  readonly maxUnreadBytes: number;
  /** How long a connection may stay over `maxUnreadBytes` before it is closed. */
  readonly unreadGraceMs: number;
}

/**
 * The settings `options` ask for, with API Gateway's limits (and the local server's bound on
 * what waits unread) for those they leave out; what is wrong with them is pushed to `problems`.
 */
export function connectionSettings(
  options: Partial<ConnectionSettings>,
  problems: string[],
): ConnectionSettings {
  const settings = {
    idleTimeoutMs: options.idleTimeoutMs ?? 10 * 60_000,
    maxConnectionMs: options.maxConnectionMs ?? 2 * 60 * 60_000,
    maxUnreadBytes: options.maxUnreadBytes ?? 8 * 1024 * 1024,
    unreadGraceMs: options.unreadGraceMs ?? 10_000,
  };
  const { maxUnreadBytes, unreadGraceMs } = settings;
  if (!(maxUnreadBytes >= 1)) problems.push(`maxUnreadBytes must be 1 or more: ${maxUnreadBytes}`);
  if (!(unreadGraceMs >= 0)) problems.push(`unreadGraceMs must be 0 or more: ${unreadGraceMs}`);
  return settings;
}

/** A backlog over the bound: released once it is back within it, or when the connection closes. */
interface Hold {
  readonly drained: Promise<void>;
  readonly release: () => void;
  readonly grace: ReturnType<typeof setTimeout>;
}

/**
 * One client's connection to the local gateway: its socket, what `GetConnection` reports, the
 * handler calls of its frames (one after the other), its idle and lifetime timers, and the bound
 * on what its client leaves unread. Once more than `maxUnreadBytes` it was posted waits unread in
 * its socket, its client's frames are left unread (so that a client that sends on and reads
 * nothing does not drive the handler) and posts to it wait, until the backlog is back within the
 * bound; if it is not within `unreadGraceMs`, the connection is closed with 4413, and posts to it
 * are answered `GoneException` as for any closed connection.
 *
 * @example
 * const connection = new GatewayConnection(ws, request, settings);
 * if (!(await connection.post('{"type":"pong"}'))) answerGone();
 */
export class GatewayConnection {
  readonly connectedAt = new Date();
  lastActiveAt = new Date();
  readonly sourceIp: string;
  readonly userAgent: string;
  /** The handler calls of this connection, one after the other. */
  queue: Promise<unknown> = Promise.resolve();
  /** Whether `$disconnect` is still owed when the socket closes. */
  announce = true;
  /** Whether it was closed while its frames were left unread: they are dropped when read. */
  #deaf = false;
  #hold: Hold | undefined;
  #idle: ReturnType<typeof setTimeout> | undefined;
  readonly #lifetime: ReturnType<typeof setTimeout>;

  constructor(
    readonly ws: WebSocket,
    request: IncomingMessage,
    private readonly settings: ConnectionSettings,
  ) {
    this.sourceIp = request.socket.remoteAddress ?? '127.0.0.1';
    this.userAgent = String(request.headers['user-agent'] ?? '');
    this.#lifetime = setTimeout(() => this.close(1001, 'Going away'), settings.maxConnectionMs);
    this.#lifetime.unref();
    this.touch();
  }

  /** Whether it takes posts: its socket is open. */
  get open(): boolean {
    return this.ws.readyState === this.ws.OPEN;
  }

  /**
   * Whether a frame its client sent goes to the handler: not once it was closed while its frames
   * were left unread, those that a client that did not read sent on.
   */
  get heard(): boolean {
    return !this.#deaf;
  }

  /** Bytes posted to it that its client has not read yet (past the operating system's buffers). */
  get unreadBytes(): number {
    return this.ws.bufferedAmount;
  }

  /** A message went either way: the idle timeout starts again. */
  touch(): void {
    this.lastActiveAt = new Date();
    clearTimeout(this.#idle);
    this.#idle = setTimeout(() => this.close(1001, 'Going away'), this.settings.idleTimeoutMs);
    this.#idle.unref();
  }

  /**
   * Sends `text` as one text frame, after the posts before it, once the backlog is within the
   * bound. False if the connection is closed by then: the post is answered `GoneException`.
   */
  async post(text: string): Promise<boolean> {
    while (this.#hold && this.open) await this.#hold.drained;
    if (!this.open) return false;
    this.touch();
    this.ws.send(text, () => this.#written());
    if (this.unreadBytes > this.settings.maxUnreadBytes) this.#holdBack();
    return true;
  }

  /**
   * Closes its socket. Frames left unread are read again, and dropped, so that the client's
   * answer to the close is read.
   */
  close(code: number, reason: string): void {
    if (this.#hold) this.#deaf = true;
    this.ws.close(code, reason);
    this.#release();
  }

  /** The socket closed: its timers stop, and posts waiting for it are answered. */
  closed(): void {
    clearTimeout(this.#idle);
    clearTimeout(this.#lifetime);
    this.announce = false;
    this.#release();
  }

  /**
   * Past the bound: the client's frames are left unread (they wait in the sockets' buffers, then
   * in its own) and posts wait, so that what waits here stays within the bound and one frame.
   */
  #holdBack(): void {
    if (this.#hold) return;
    let release = (): void => {};
    const drained = new Promise<void>((resolve) => {
      release = resolve;
    });
    const grace = setTimeout(() => this.#graceOver(), this.settings.unreadGraceMs);
    grace.unref();
    this.#hold = { drained, release, grace };
    this.ws.pause();
  }

  /** A frame went out to the client's socket: one whose backlog is back within the bound reads on. */
  #written(): void {
    if (this.#hold && this.unreadBytes <= this.settings.maxUnreadBytes) this.#release();
  }

  #graceOver(): void {
    const max = this.settings.maxUnreadBytes;
    if (this.unreadBytes <= max) {
      this.#release();
      return;
    }
    this.close(NOT_READING, `over ${max} bytes sent were left unread: read, then connect again`);
  }

  /** Ends a hold: its frames are read again (so a closing one's answer to the close is read). */
  #release(): void {
    const hold = this.#hold;
    if (!hold) return;
    this.#hold = undefined;
    clearTimeout(hold.grace);
    hold.release();
    this.ws.resume();
  }
}
