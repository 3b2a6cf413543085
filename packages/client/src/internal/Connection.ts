import { type BatonError, ErrorCode, toBatonError } from '@baton/core';
import type { ClientMessage, ServerMessage } from '@baton/protocol';
import {
  ChunkAssembler,
  decodeServerMessage,
  encodeMessage,
  PROTOCOL_VERSION,
  ProtocolErrorReason,
  protocolError,
  RECEIVED_SUBPROTOCOL,
  splitFrame,
  UNACKED_SUBPROTOCOL,
} from '@baton/protocol';
import type { WebSocketConstructor, WebSocketLike } from '../BatonClientOptions.ts';
import type { ConnectionState } from '../ConnectionState.ts';
import { authCloseError, authFrameError } from './authEnd.ts';
import { backoffDelay } from './backoffDelay.ts';
import { connectTarget } from './connectTarget.ts';
import type { PageEvents } from './PageEvents.ts';
import { serverCloseError } from './serverCloseError.ts';
import { refreshDelay, tokenExpiry, tokenSubject } from './tokenClaims.ts';

const OPEN = 1;

/**
 * How the open socket's server wants pushes acknowledged: by the count of frames read
 * (`baton.v1.received`), per subscription (`baton.v1`), or not at all (`baton.v1.unacked`).
 */
export type AckMode = 'received' | 'versions' | 'none';

/** Everything a {@link Connection} needs, defaults filled in. */
export interface ConnectionSettings {
  readonly url: string;
  readonly token: string | (() => string | Promise<string>) | undefined;
  readonly WebSocket: WebSocketConstructor;
  readonly minMs: number;
  readonly maxMs: number;
  readonly stableMs: number;
  readonly pingMs: number;
  readonly pongTimeoutMs: number;
  readonly maxConnectionMs: number;
  readonly random: () => number;
  readonly setTimeout: (callback: () => void, ms: number) => unknown;
  readonly clearTimeout: (handle: unknown) => void;
  readonly page: PageEvents | undefined;
}

/** What a {@link Connection} tells its owner. */
export interface ConnectionHooks {
  /** A socket opened: subscribe and re-send what is in flight. */
  onOpen(): void;
  onMessage(message: ServerMessage): void;
  onState(state: ConnectionState): void;
  onError(error: BatonError): void;
  /**
   * The server ended the connection's auth (refused or expired its token). `final`: the token is
   * fixed, so the connection is closed for good; else it reconnects with one from the function.
   */
  onAuthEnded(error: BatonError, final: boolean): void;
}

/**
 * One logical connection over a succession of WebSockets: opens one, reassembles chunked
 * frames, pings within the idle limit, drops a socket that stops answering, renews it before
 * the maximum connection age, and reconnects after a drop with jittered exponential backoff
 * (at once when the page comes back online or into view).
 */
export class Connection {
  readonly #settings: ConnectionSettings;
  readonly #hooks: ConnectionHooks;
  readonly #assembler = new ChunkAssembler();
  #state: ConnectionState = 'connecting';
  #socket: WebSocketLike | undefined;
  #framesRead = 0;
  /**
   * Failed attempts since the last connection that stayed up `stableMs`: the backoff exponent.
   * A socket that opens and drops sooner counts as failed, so that a server that accepts and
   * closes at once (refusing, crashing, deploying) is not reconnected to every `minMs`.
   */
  #attempt = 0;
  /** Bumped by every connect and drop, so late events of an old socket are ignored. */
  #generation = 0;
  #retryTimer: unknown;
  #pingTimer: unknown;
  #pongTimer: unknown;
  #renewTimer: unknown;
  /** Resets the backoff once the socket has stayed up `stableMs`. */
  #stableTimer: unknown;
  /** Fetches a fresh token ahead of the current one's expiry. */
  #refreshTimer: unknown;
  /** The token the socket was opened with, when it came from the `token` function (fresh). */
  #freshToken: string | undefined;
  /**
   * The user the last socket opened named with its token (`tokenSubject`: `''` when it cannot
   * tell); undefined until one opens. Kept while the client reconnects.
   */
  #subject: string | undefined;
  readonly #stopPage: () => void;

  constructor(settings: ConnectionSettings, hooks: ConnectionHooks) {
    this.#settings = settings;
    this.#hooks = hooks;
    this.#stopPage = settings.page?.listen(() => this.wake()) ?? (() => {});
    // Not in the constructor's own turn: a client closed at once (React's StrictMode mounts a
    // provider's effects twice) then opens no socket to abandon, which a browser reports.
    queueMicrotask(() => void this.#connect());
  }

  get state(): ConnectionState {
    return this.#state;
  }

  /** How the open socket's server wants pushes acknowledged: the subprotocol it selected. */
  get acks(): AckMode {
    const selected = this.#socket?.protocol;
    if (selected === RECEIVED_SUBPROTOCOL) return 'received';
    return selected === UNACKED_SUBPROTOCOL ? 'none' : 'versions';
  }

  /**
   * The user the last socket that opened named, as far as the client can tell (`tokenSubject`);
   * undefined until one opens.
   */
  get subject(): string | undefined {
    return this.#subject;
  }

  /** The frames read on the current socket, chunks one each: what a `received` frame acks. */
  get framesRead(): number {
    return this.#framesRead;
  }

  /** Sends a frame (split into chunks past 128 KiB); false when no socket is open. */
  send(message: ClientMessage): boolean {
    const socket = this.#socket;
    if (socket === undefined || socket.readyState !== OPEN) return false;
    for (const frame of splitFrame(encodeMessage(message))) socket.send(frame);
    return true;
  }

  /**
   * Reconnects now if the connection is waiting for its backoff; checks an open one with a
   * ping (a dead socket is then dropped after `pongTimeoutMs`).
   */
  wake(): void {
    if (this.#state === 'closed') return;
    if (this.#state === 'open') {
      this.#ping();
      return;
    }
    if (this.#retryTimer !== undefined) {
      this.#settings.clearTimeout(this.#retryTimer);
      this.#retryTimer = undefined;
      this.#attempt = 0;
      void this.#connect();
    }
  }

  /** Closes the socket for good. */
  close(): void {
    if (this.#state === 'closed') return;
    this.#stopPage();
    this.#detach(1000, 'client closed');
    if (this.#retryTimer !== undefined) this.#settings.clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    this.#setState('closed');
  }

  /** Opens a socket, with `fetched` as its token, else one from the `token` option. */
  async #connect(fetched?: string): Promise<void> {
    const generation = ++this.#generation;
    const { token } = this.#settings;
    let resolved: string | undefined;
    try {
      resolved = fetched ?? (typeof token === 'function' ? await token() : token);
    } catch (error) {
      if (generation !== this.#generation || this.#state === 'closed') return;
      this.#hooks.onError(toBatonError(error));
      this.#scheduleRetry();
      return;
    }
    if (generation !== this.#generation || this.#state === 'closed') return;
    this.#freshToken = typeof token === 'function' ? resolved : undefined;
    const subject = tokenSubject(resolved);
    const target = connectTarget(this.#settings.url, resolved);
    // A token in the URL the app gave counts as sent too.
    const tokenSent =
      target.protocols.some((p) => p.startsWith('token.')) || /[?&]token=/.test(target.url);
    let socket: WebSocketLike;
    try {
      socket = new this.#settings.WebSocket(target.url, target.protocols);
    } catch (error) {
      this.#hooks.onError(toBatonError(error));
      this.#scheduleRetry();
      return;
    }
    this.#socket = socket;
    this.#framesRead = 0;
    socket.onopen = () => {
      if (socket !== this.#socket) return;
      this.#schedulePing();
      const { maxConnectionMs, stableMs, setTimeout } = this.#settings;
      this.#stableTimer = setTimeout(() => {
        this.#stableTimer = undefined;
        this.#attempt = 0;
      }, stableMs);
      this.#renewTimer = setTimeout(() => this.#renew(), maxConnectionMs);
      const refreshMs = refreshDelay(this.#freshToken, Date.now());
      if (refreshMs !== undefined && refreshMs < maxConnectionMs) {
        this.#refreshTimer = setTimeout(() => void this.#refresh(), refreshMs);
      }
      this.#subject = subject;
      this.#setState('open');
      this.#hooks.onOpen();
    };
    socket.onmessage = (event: { data: unknown }) => {
      if (socket !== this.#socket) return;
      this.#framesRead++;
      this.#receive(event.data);
    };
    socket.onclose = (event: { code?: number; reason?: string }) => {
      if (socket !== this.#socket) return;
      const code = event?.code ?? 1006;
      const reason = event?.reason || 'no reason given';
      const authEnd = authCloseError(code, reason, this.#tokenIsFixed, tokenSent);
      if (authEnd !== undefined) {
        this.#endAuth(authEnd);
        return;
      }
      const closed = serverCloseError(code, reason);
      if (closed !== undefined) this.#hooks.onError(closed);
      this.#dropped();
    };
    socket.onerror = () => {}; // a close event follows
  }

  #receive(data: unknown): void {
    this.#clearPongTimer();
    let message: ServerMessage;
    try {
      if (typeof data !== 'string') {
        throw protocolError(
          ErrorCode.INVALID_PAYLOAD,
          ProtocolErrorReason.NOT_JSON,
          'binary frame: Baton frames are JSON text',
        );
      }
      message = decodeServerMessage(data);
      if (message.type === 'chunk') {
        const whole = this.#assembler.add(message);
        if (whole === undefined) return;
        message = decodeServerMessage(whole, { maxFrameBytes: this.#assembler.maxMessageBytes });
        if (message.type === 'chunk') {
          throw protocolError(
            ErrorCode.INVALID_PAYLOAD,
            ProtocolErrorReason.INVALID_CHUNK,
            'a chunked message may not hold a chunk',
          );
        }
      }
    } catch (error) {
      this.#hooks.onError(toBatonError(error));
      return;
    }
    if (message.type === 'pong') return;
    if (message.type === 'error' && message.id === undefined && message.requestId === undefined) {
      const authEnd = authFrameError(message.error, this.#tokenIsFixed);
      if (authEnd !== undefined) {
        this.#endAuth(authEnd);
        return;
      }
    }
    this.#hooks.onMessage(message);
  }

  /** Whether every connect sends the same token (a string, or none): no fresh one can come. */
  get #tokenIsFixed(): boolean {
    return typeof this.#settings.token !== 'function';
  }

  /**
   * The server refused or expired the token: with a fixed one, retrying cannot succeed, so the
   * connection closes for good; a token function may give a fresh one, so reconnect.
   */
  #endAuth(error: BatonError): void {
    const final = this.#tokenIsFixed;
    this.#hooks.onError(error);
    this.#hooks.onAuthEnded(error, final);
    if (final) this.close();
    else this.#dropped();
  }

  /** The socket closed (or stopped answering): reconnect after the backoff. */
  #dropped(): void {
    this.#detach(4000, 'dropped');
    if (this.#state === 'open') this.#setState('reconnecting');
    this.#scheduleRetry();
  }

  /** Renews the connection ahead of the gateway's maximum age: no backoff. */
  #renew(fetched?: string): void {
    this.#detach(1000, 'renewing the connection');
    this.#setState('reconnecting');
    this.#attempt = 0;
    void this.#connect(fetched);
  }

  /**
   * Ahead of the token's expiry, asks the `token` function for a fresh one, and renews the
   * connection with it: the socket it has stays up meanwhile. A token function that fails, or
   * hands out a token of the same user that expires no later, leaves the socket as it is, until
   * the server closes it at the token's end and the client connects again.
   */
  async #refresh(): Promise<void> {
    const { token } = this.#settings;
    const generation = this.#generation;
    let next: string;
    try {
      next = await (token as () => string | Promise<string>)();
    } catch (error) {
      if (generation === this.#generation) this.#hooks.onError(toBatonError(error));
      return;
    }
    if (generation !== this.#generation || this.#state !== 'open') return;
    const current = tokenExpiry(this.#freshToken ?? '') ?? Number.POSITIVE_INFINITY;
    const later = (tokenExpiry(next) ?? Number.NEGATIVE_INFINITY) > current;
    if (later || tokenSubject(next) !== this.#subject) this.#renew(next);
  }

  /** Forgets the current socket (closing it if it is still up) and its timers. */
  #detach(code: number, reason: string): void {
    this.#generation += 1;
    const socket = this.#socket;
    this.#socket = undefined;
    this.#assembler.clear();
    const timers = [
      this.#pingTimer,
      this.#pongTimer,
      this.#renewTimer,
      this.#refreshTimer,
      this.#stableTimer,
    ];
    for (const timer of timers) if (timer !== undefined) this.#settings.clearTimeout(timer);
    this.#pingTimer = this.#pongTimer = this.#renewTimer = this.#refreshTimer = undefined;
    this.#stableTimer = undefined;
    if (socket === undefined) return;
    socket.onopen = socket.onmessage = socket.onclose = null;
    socket.onerror = () => {}; // closing a socket still connecting reports an error
    try {
      socket.close(code, reason);
    } catch {
      // already closing
    }
  }

  #scheduleRetry(): void {
    if (this.#state === 'closed') return;
    const { minMs, maxMs, random } = this.#settings;
    const delay = backoffDelay(this.#attempt, minMs, maxMs, random);
    this.#attempt += 1;
    this.#retryTimer = this.#settings.setTimeout(() => {
      this.#retryTimer = undefined;
      void this.#connect();
    }, delay);
  }

  #schedulePing(): void {
    this.#pingTimer = this.#settings.setTimeout(() => {
      this.#ping();
      this.#schedulePing();
    }, this.#settings.pingMs);
  }

  #ping(): void {
    if (!this.send({ v: PROTOCOL_VERSION, type: 'ping', t: Date.now() })) return;
    if (this.#pongTimer !== undefined) return;
    this.#pongTimer = this.#settings.setTimeout(() => {
      this.#pongTimer = undefined;
      this.#dropped();
    }, this.#settings.pongTimeoutMs);
  }

  #clearPongTimer(): void {
    if (this.#pongTimer === undefined) return;
    this.#settings.clearTimeout(this.#pongTimer);
    this.#pongTimer = undefined;
  }

  #setState(state: ConnectionState): void {
    if (state === this.#state) return;
    this.#state = state;
    this.#hooks.onState(state);
  }
}
