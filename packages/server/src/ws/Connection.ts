import { BatonError, callerOf, ErrorCode, toBatonError, withheld } from '@baton/core';
import {
  ChunkAssembler,
  type ErrorTarget,
  encodeMessage,
  MAX_FRAME_BYTES,
  PROTOCOL_VERSION,
  RECEIVED_SUBPROTOCOL,
  type ServerMessage,
  splitFrame,
} from '@baton/protocol';
import type { WebSocket } from 'ws';
import { authLapsed, type ConnectAuth } from '../session/authenticate.ts';
import { MemoryFrameCounter } from '../session/connectionLimits.ts';
import type { SessionCaller, SessionPorts, SubscriptionOpening } from '../session/SessionPorts.ts';
import { CloseCode } from './CloseCode.ts';
import type { CommitWait } from './CommitTracker.ts';
import type { ConnectionContext } from './ConnectionContext.ts';
import type { ConnectionInfo } from './ConnectionInfo.ts';
import { closeReason } from './closeReason.ts';
import { commitOutcomes } from './commitOutcomes.ts';
import { FrameWriter, type RawSocket } from './FrameWriter.ts';
import { ReceivedAcks } from './ReceivedAcks.ts';
import { SubscriptionStream } from './SubscriptionStream.ts';

/** Engine leases last this much longer than a connection's (renewals are throttled to a tenth). */
const LEASE_MARGIN = 1.2;

/**
 * Asks and visible sends one connection may have waiting for their answers: one more is
 * LIMIT_EXCEEDED, not enqueued. A visible send waits for the client's acks of the results it
 * was pushed; without this, a client that never acks piled up waits, bounded only by its rate.
 */
export const MAX_WAITING_REQUESTS = 256;

/**
 * One client's WebSocket: hands every frame, in order, to the protocol session with this
 * connection's ports (its subscriptions as streams over engine leases renewed by every frame,
 * its frame count and pending chunks in memory, outcome waits on the commit tracker), and drops
 * everything when the socket closes. The frames sent in one turn of the event loop (a fan-out
 * gives each connection one per subscription) leave in one write of the underlying socket, as
 * one buffer of WebSocket frames ({@link FrameWriter}). On `baton.v1.received` the client acks by
 * the count of frames it read: the connection numbers the frames it writes and keeps each push
 * awaiting its ack with the number of its frame ({@link ReceivedAcks}).
 *
 * @example
 * const connection = new Connection(socket, 1, { identity, validUntil }, context, rawSocket);
 * connection.expired(clock.now()); // true once no frame came for leaseMs
 */
export class Connection {
  readonly #streams = new Map<string, SubscriptionStream>();
  readonly #waits = new Set<CommitWait>();
  readonly #assembler: ChunkAssembler;
  readonly #who: SessionCaller;
  readonly #ports: SessionPorts;
  /** The frames being handled: the next waits for them, so frames are handled in order. */
  #handled: Promise<void> = Promise.resolve();
  /** How many frames are still being handled (each waits for the one before). */
  #handling = 0;
  #lastFrameAt: number;
  #lastRenewAt: number;
  #closed = false;
  /** Writes the frames to the client, and watches what it leaves unread. */
  readonly #writer: FrameWriter;
  /** Whether the client acks by count (`baton.v1.received`). */
  readonly #counted: boolean;
  /** When the identity ends (epoch ms), if the auth hook said. */
  readonly #validUntil: number | undefined;
  /** On a counted connection, the pushes awaiting their acks. */
  readonly #acks = new ReceivedAcks();

  readonly identity: unknown;

  constructor(
    private readonly socket: WebSocket,
    readonly id: number,
    { identity, validUntil }: ConnectAuth,
    private readonly context: ConnectionContext,
    transport?: RawSocket,
    /** The user it counts against (`maxConnectionsPerUser`); none for an anonymous one. */
    readonly owner?: string,
  ) {
    this.identity = identity;
    this.#validUntil = validUntil;
    this.#lastFrameAt = this.#lastRenewAt = context.clock.now();
    this.#assembler = new ChunkAssembler({
      maxMessageBytes: context.maxChunkedBytes,
      maxBufferedBytes: context.maxChunkedBytes,
      shared: context.assembling,
      onExpire: (error) => this.#error(error, {}),
    });
    this.#writer = new FrameWriter(socket, transport, {
      connection: id,
      clock: context.clock,
      logger: context.logger,
      maxUnreadBytes: context.maxUnreadBytes,
      closed: () => this.#closed,
      close: (code, reason) => this.close(code, reason),
    });
    this.#who = { identity, caller: callerOf(identity) };
    this.#counted = socket.protocol === RECEIVED_SUBPROTOCOL;
    this.#ports = {
      reply: (frame) => {
        this.send(frame);
      },
      frames: new MemoryFrameCounter(),
      close: (error) => {
        if (this.#closed) return;
        const { code, message, details } = error;
        context.logger.warn('closing a connection for a policy violation', {
          connection: id,
          code,
          reason: message,
          ...details,
        });
        this.close(CloseCode.TOO_MANY_FRAMES, closeReason(error.message));
      },
      chunks: this.#assembler,
      subscriptions: {
        countBeside: (id) => this.#streams.size - (this.#streams.has(id) ? 1 : 0),
        open: (opening) => this.#subscribe(opening),
        close: (id) => {
          this.#streams.get(id)?.close();
          this.#streams.delete(id);
        },
        ack: (id, version) => this.#streams.get(id)?.ack(version),
        received: (frames) => this.#acks.received(frames),
      },
      outcomes: commitOutcomes({
        engine: context.engine,
        tracker: context.tracker,
        reply: (frame) => this.send(frame),
        told: (error) => this.#told(error, 'an outcome wait failed'),
        streams: () => this.#streams.values(),
        hold: (wait) => {
          if (this.#closed) wait.cancel();
          else this.#waits.add(wait);
          return () => this.#waits.delete(wait);
        },
        waiting: () => this.#waits.size,
        maxWaiting: MAX_WAITING_REQUESTS,
      }),
    };
    socket.on('message', (data, isBinary) => this.#onFrame(data as Buffer, isBinary));
    socket.on('close', () => this.#cleanUp());
    socket.on('error', (error) => {
      context.logger.debug('websocket error', { connection: id, error: error.message });
    });
  }

  get closed(): boolean {
    return this.#closed;
  }

  info(): ConnectionInfo {
    const { id, identity } = this;
    const subscriptions = this.#streams.size;
    return {
      id,
      identity,
      subscriptions,
      lastFrameAt: this.#lastFrameAt,
      unreadBytes: this.#writer.unread(),
    };
  }

  /** Whether the lease lapsed: no frame for `leaseMs` by `now`. */
  expired(now: number): boolean {
    return now - this.#lastFrameAt >= this.context.leaseMs;
  }

  /**
   * Closes the connection (4440) if its identity ended by `now`: its client connects again with
   * a fresh token. True if it is closed.
   */
  closeIfAuthLapsed(now: number): boolean {
    if (!authLapsed(this.#validUntil, now)) return false;
    this.close(CloseCode.AUTH_EXPIRED, 'the token expired: connect again with a fresh one');
    return true;
  }

  /**
   * The heartbeat's look at the client's backlog: closes the connection (4413) if it has left
   * more than `maxUnreadBytes` unread since a grace before `now` (one whose frames and pushes
   * are held gets no write that would find it), else starts that grace. Under the bound, what
   * was held goes on: the socket emits `'drain'` only after a write it could not take, which a
   * backlog under its high-water mark never was. True if it is closed.
   */
  closeIfNotReading(now: number): boolean {
    if (this.#closed) return false;
    return this.#writer.closeIfNotReading(now);
  }

  /** Drops pending chunked messages that timed out, telling the client. */
  evictChunks(): void {
    for (const error of this.#assembler.evictExpired()) this.#error(error, {});
  }

  /** Closes the socket after the frames of this turn; subscriptions and waits are dropped at once. */
  close(code: number, reason: string): void {
    this.#writer.flush();
    this.#cleanUp();
    this.socket.close(code, reason);
    // Its frames are read again (and dropped), so that its answer to the close is read.
    this.#writer.readAgain();
  }

  #onFrame(data: Buffer, isBinary: boolean): void {
    if (this.#closed || this.closeIfAuthLapsed(this.context.clock.now())) return;
    this.#touch();
    // Frames are handled in order: one that comes while another is still being handled waits
    // for it; else it is handled at once (an ack, the frame a fan-out brings most, completes so).
    if (this.#handling === 0) this.#waitFor(this.#handle(data, isBinary));
    else this.#waitFor(this.#handled.then(() => this.#handle(data, isBinary)));
  }

  /** Makes later frames wait for `handling`, unless the frame was handled already. */
  #waitFor(handling: Promise<void> | undefined): void {
    if (!handling) return;
    this.#handling++;
    this.#handled = handling.then(() => {
      this.#handling--;
    });
  }

  #handle(data: Buffer, isBinary: boolean): Promise<void> | undefined {
    // A frame that waited behind another may find the identity ended meanwhile.
    if (this.#closed || this.closeIfAuthLapsed(this.context.clock.now())) return undefined;
    try {
      return this.context.session
        .handle(this.#who, this.#ports, data, isBinary)
        ?.catch((error: unknown) => this.#bug(error));
    } catch (error) {
      this.#bug(error);
      return undefined;
    }
  }

  /** The session answers every problem of the client's: this is a bug of the host's. */
  #bug(error: unknown): void {
    const reason = toBatonError(error).message;
    this.context.logger.error('a frame could not be handled', { connection: this.id, reason });
  }

  #subscribe({ id, query, args, resume }: SubscriptionOpening): void {
    if (this.#closed) return;
    this.#streams.get(id)?.close();
    this.#streams.delete(id);
    const stream: SubscriptionStream = new SubscriptionStream(
      id,
      (frame, awaiting) => {
        const sent = this.send(frame);
        if (sent && awaiting !== undefined && this.#counted) {
          this.#acks.wrote(this.#writer.written, stream, awaiting, this.#streams);
        }
      },
      this.context.cache,
      this.context.frames,
      this.#writer.gate,
    );
    const { engine, leaseMs } = this.context;
    const request = { query, args, identity: this.identity, caller: this.#who.caller };
    // The engine lease outlives the connection's by a margin: the connection closes first, and
    // the engine's collect() only catches subscriptions a lost close event left behind.
    const lease = { ...request, leaseMs: Math.ceil(leaseMs * LEASE_MARGIN) };
    // Throws for this subscription only (the session checked access and args already).
    stream.attach(engine.subscribe(lease, (update) => stream.onUpdate(update)));
    this.#streams.set(id, stream);
    if (!resume) return;
    stream.beginResume();
    engine.resume({ ...request, lastVersion: resume.version, hash: resume.hash }).then(
      (answer) => stream.resumed(resume, answer),
      (error: unknown) => stream.fail(this.#told(error, 'a subscription could not resume')),
    );
  }

  /** A host-side failure as the client is told it: a surprise's text goes to the log only. */
  #told(error: unknown, what: string): BatonError {
    return withheld(toBatonError(error), (text) =>
      this.context.logger.error(what, { connection: this.id, error: text }),
    );
  }

  /**
   * Sends a frame, or its encoded text, in chunks when it is over 128 KiB; nothing once the
   * socket is closing. Returns whether it was sent.
   */
  send(frame: ServerMessage | string): boolean {
    if (this.#closed || this.socket.readyState !== this.socket.OPEN) return false;
    // Nothing more for an identity that ended: no result reaches it past its token.
    if (this.#validUntil !== undefined && this.closeIfAuthLapsed(this.context.clock.now())) {
      return false;
    }
    let text: string;
    if (typeof frame === 'string') {
      text = frame;
    } else {
      try {
        text = encodeMessage(frame);
      } catch (error) {
        // Query results and stored outcomes are JSON already: this is a bug, not the client's.
        const reason = toBatonError(error).message;
        this.context.logger.error('a frame could not be encoded', { type: frame.type, reason });
        return false;
      }
    }
    if (text.length <= MAX_FRAME_BYTES / 3) this.#writer.write(text);
    else for (const piece of splitFrame(text, MAX_FRAME_BYTES)) this.#writer.write(piece);
    return true;
  }

  #error(error: BatonError, target: ErrorTarget): void {
    this.send({ v: PROTOCOL_VERSION, type: 'error', ...target, error: error.toJSON() });
  }

  /** A frame arrived: the connection is alive; renew its leases (at most every tenth of one). */
  #touch(): void {
    const now = this.context.clock.now();
    this.#lastFrameAt = now;
    if (now - this.#lastRenewAt < this.context.leaseMs / 10) return;
    this.#lastRenewAt = now;
    for (const [id, stream] of this.#streams) {
      if (stream.subscription?.renew() === false) {
        // The engine collected it (it should not, see LEASE_MARGIN): the client resubscribes.
        this.#streams.delete(id);
        stream.close();
        const error = new BatonError(
          ErrorCode.UNAVAILABLE,
          'the subscription lapsed; subscribe again',
        );
        this.#error(error, { id });
      }
    }
  }

  #cleanUp(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const stream of this.#streams.values()) stream.close();
    this.#streams.clear();
    for (const wait of this.#waits) wait.cancel();
    this.#waits.clear();
    this.#assembler.clear();
    this.#acks.clear();
    this.#writer.gate.clear();
  }
}
