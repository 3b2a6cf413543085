/**
 * The way out to one client: the frames a connection sends in one turn of the event loop leave
 * in one write of the underlying socket ({@link textFrames}), and the client's unread backlog is
 * watched — its frames are left unread while the backlog is over `maxUnreadBytes`, its
 * subscription pushes held ({@link PushGate}), and its connection closed once the backlog stayed
 * over for {@link UNREAD_GRACE_MS}.
 */
import type { Logger } from '@baton/core';
import type { Clock } from '@baton/core/adapter';
import type { WebSocket } from 'ws';
import { CloseCode } from './CloseCode.ts';
import { PushGate } from './PushGate.ts';
import { textFrames } from './textFrames.ts';

/** How long a client's unread backlog may stay over `maxUnreadBytes` before it is closed. */
export const UNREAD_GRACE_MS = 10_000;

/** The socket under a WebSocket (without permessage-deflate): a turn's frames go out in one write. */
export interface RawSocket {
  write(chunk: Buffer): boolean;
  /** Bytes written and not yet taken by the peer (a `net.Socket`'s). */
  readonly writableLength?: number;
  /** A `net.Socket`'s: `'drain'` once what was written is taken. */
  once?(event: 'drain', listener: () => void): unknown;
}

/** What a writer needs of its connection and of the server. */
export interface FrameWriterOptions {
  /** The connection's id, for the log. */
  readonly connection: number;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Bytes that may wait unread in the client's socket before the connection is closed (4413). */
  readonly maxUnreadBytes: number;
  /** Whether the connection is closed. */
  readonly closed: () => boolean;
  /** Closes the connection. */
  readonly close: (code: number, reason: string) => void;
}

export class FrameWriter {
  /** Holds subscription pushes while the client leaves over `maxUnreadBytes` unread. */
  readonly gate: PushGate;
  /** This turn's frames, written together at its end, and their length. */
  #outgoing: string[] = [];
  #outgoingLength = 0;
  /** Since when the client's unread backlog is over `maxUnreadBytes` (see `#notReading`). */
  #unreadSince: number | undefined;
  /** Whether the client's frames are left unread until its backlog drains (see `#holdFrames`). */
  #holding = false;
  /** Frames written on the socket: the count a `received` frame acknowledges up to. */
  #written = 0;

  constructor(
    private readonly socket: WebSocket,
    private readonly transport: RawSocket | undefined,
    private readonly options: FrameWriterOptions,
  ) {
    this.gate = new PushGate(
      () => this.unread() + this.#outgoingLength,
      options.maxUnreadBytes,
      transport,
    );
  }

  /** Frames written on the socket so far. */
  get written(): number {
    return this.#written;
  }

  /**
   * The heartbeat's look at the client's backlog (see `Connection.closeIfNotReading`): closes
   * the connection if it has left too much unread for too long, else, under the bound, reads
   * its frames again and lets held pushes go on. True if it is closed.
   */
  closeIfNotReading(now: number): boolean {
    const unread = this.unread();
    if (this.#notReading(unread, now)) return true;
    if (unread <= this.options.maxUnreadBytes) {
      if (this.#holding) {
        this.#holding = false;
        this.socket.resume();
      }
      this.gate.written();
    }
    return false;
  }

  /** Reads the client's frames again if they were held (the connection is closing). */
  readAgain(): void {
    if (this.#holding) this.socket.resume();
  }

  write(text: string): void {
    this.#written++;
    if (!this.transport) {
      if (!this.#notReading(this.unread(), this.options.clock.now())) this.socket.send(text);
      return;
    }
    if (this.#outgoing.length === 0) process.nextTick(() => this.flush());
    this.#outgoing.push(text);
    this.#outgoingLength += Buffer.byteLength(text);
  }

  /** Writes this turn's frames in one buffer, unless the socket started closing meanwhile. */
  flush(): void {
    if (this.#outgoing.length === 0) return;
    const texts = this.#outgoing;
    this.#outgoing = [];
    this.#outgoingLength = 0;
    if (this.socket.readyState !== this.socket.OPEN) return;
    const now = this.options.clock.now();
    if (this.#notReading(this.unread(), now)) return;
    this.transport!.write(textFrames(texts));
    this.gate.written();
  }

  /** Bytes written to the client that it has not read yet. */
  unread(): number {
    return this.transport ? (this.transport.writableLength ?? 0) : this.socket.bufferedAmount;
  }

  /**
   * Whether the client has left more than `maxUnreadBytes` of what was written before unread
   * for {@link UNREAD_GRACE_MS}: its connection is then closed. Its acks (a count it may send
   * without reading) are no proof that it reads; the socket's backlog is. One large write (a
   * page subscribing to views of megabytes) is no sign, so the backlog is read before a write,
   * and a client that reads catches up within the grace. Meanwhile its frames wait unread.
   */
  #notReading(unread: number, now: number): boolean {
    const max = this.options.maxUnreadBytes;
    if (unread <= max) {
      this.#unreadSince = undefined;
      return false;
    }
    this.#holdFrames();
    this.#unreadSince ??= now;
    if (now - this.#unreadSince < UNREAD_GRACE_MS) return false;
    this.options.logger.warn('closing a connection whose client does not read', {
      connection: this.options.connection,
      unread,
      maxUnreadBytes: max,
    });
    this.options.close(
      CloseCode.NOT_READING,
      `over ${max} bytes sent were left unread: read, then connect again`,
    );
    return true;
  }

  /**
   * Leaves the client's frames unread until what was written to it drains. Most frames are
   * answered, and an ack frees a held push: a client that sent frames on and read none of the
   * answers would have the host write without bound within the grace. Its frames wait in the
   * sockets' buffers, then in its own, and its backlog here stays near `maxUnreadBytes`.
   */
  #holdFrames(): void {
    if (this.#holding || !this.transport?.once) return;
    this.#holding = true;
    this.socket.pause();
    this.transport.once('drain', () => {
      this.#holding = false;
      this.#unreadSince = undefined;
      if (!this.options.closed()) this.socket.resume();
    });
  }
}
