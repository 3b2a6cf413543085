import {
  type AnyQueryDefinition,
  BatonError,
  ErrorCode,
  jsonLogger,
  type Logger,
  toBatonError,
  withheld,
} from '@baton/core';
import {
  type Clock,
  ingressMessageId,
  messageFingerprint,
  parseActorId,
} from '@baton/core/adapter';
import type { Client, SendResult } from '@baton/core/client';
import {
  type AskMessage,
  ChunkAssembler,
  type ClientMessage,
  type ErrorTarget,
  MAX_FRAME_BYTES,
  PROTOCOL_VERSION,
  ProtocolErrorReason,
  readClientFrame,
  type SendMessage,
  type SubscribeMessage,
} from '@baton/protocol';
import { resolveInstanceKey } from '../evaluation/resolveInstanceKey.ts';
import { identityScope } from '../QueryEngineOptions.ts';
import {
  type ConnectionLimits,
  frameOutcome,
  rateLimited,
  tooManyFrames,
  tooManySubscriptions,
} from './connectionLimits.ts';
import type { OutcomeWait, SessionCaller, SessionPorts } from './SessionPorts.ts';

/** RATE_LIMITED answers a connection is sent in one second; later refused frames get none. */
const REFUSALS_ANSWERED = 10;

/**
 * What a {@link ProtocolSession} serves: the app's queries and its `Client`, and the
 * per-connection caps.
 *
 * @example
 * const options: ProtocolSessionOptions = { queries: [balance], client, clock, limits };
 */
export interface ProtocolSessionOptions {
  readonly queries: readonly AnyQueryDefinition[];
  /** Enqueues sends and asks; every one carries the connection's caller. */
  readonly client: Client;
  readonly clock: Clock;
  readonly limits: Required<ConnectionLimits>;
  /** Subscribers with equal scopes share an instance. @default one scope per identity */
  readonly scope?: ((identity: unknown) => string) | undefined;
  /** A frame past this is MESSAGE_TOO_LARGE. @default 128 KiB */
  readonly maxFrameBytes?: number;
  /** Where an unexpected failure's text goes (the client is not told it). @default jsonLogger() */
  readonly logger?: Logger;
}

/**
 * Baton's WebSocket protocol for one host, whatever carries its frames: counts a client frame,
 * whatever its size, against the connection's rate before reading it (RATE_LIMITED; past twice
 * the rate in one second the connection is closed), reads it
 * (a malformed one is INVALID_PAYLOAD, an oversized one MESSAGE_TOO_LARGE), checks access by the one rule every door shares
 * (`resolveInstanceKey` for queries, the `Client` for messages: unknown or internal names are
 * FORBIDDEN), caps the connection's subscriptions (LIMIT_EXCEEDED), and dispatches to the
 * host's ports: subscriptions, sends and asks through the `Client` with the frame's idempotency
 * key, pings. Every problem is answered with an `error` frame naming the subscription or
 * request when the frame does; nothing a client sends throws out of {@link handle}.
 *
 * @example
 * const session = new ProtocolSession({ queries, client, clock, limits });
 * await session.handle({ identity, caller: callerOf(identity) }, ports, data, isBinary);
 */
export class ProtocolSession {
  readonly #queries: ReadonlyMap<string, AnyQueryDefinition>;
  readonly #scope: (identity: unknown) => string;
  readonly #maxFrameBytes: number;
  readonly #logger: Logger;

  constructor(private readonly options: ProtocolSessionOptions) {
    this.#queries = new Map(options.queries.map((query) => [query.name, query]));
    this.#scope = options.scope ?? identityScope;
    this.#maxFrameBytes = options.maxFrameBytes ?? MAX_FRAME_BYTES;
    this.#logger = options.logger ?? jsonLogger();
  }

  /**
   * Handles one frame a client sent. Returns a promise that resolves once the frame is answered
   * (an outcome may come later), or `undefined` when it was handled at once: a frame that needs
   * no wait (an `ack`, `acks` or `received`, with a counter in memory) costs no promise, as a
   * fan-out brings one ack per push.
   */
  handle(
    who: SessionCaller,
    ports: SessionPorts,
    data: Buffer,
    isBinary: boolean,
  ): Promise<void> | undefined {
    // Every frame counts before it is read, whatever its size: a chunk of a message still
    // incomplete too (a chunked message costs a frame per chunk), and a malformed frame. A flood
    // of large chunks is held to the rate as a flood of pings is; as no frame is over
    // 8 × maxFrameBytes (the host closes the socket past it), the rate bounds the bytes too.
    const now = this.options.clock.now();
    const counted = ports.frames.count(Math.floor(now / 1000));
    if (typeof counted !== 'number') {
      return counted.then((frame) => this.#answer(who, ports, data, isBinary, frame, now));
    }
    return this.#answer(who, ports, data, isBinary, counted, now);
  }

  /** Handles a frame by its number in its second: passed, refused, closing or dropped. */
  #answer(
    who: SessionCaller,
    ports: SessionPorts,
    data: Buffer,
    isBinary: boolean,
    frame: number,
    now: number,
  ): Promise<void> | undefined {
    const max = this.options.limits.maxFramesPerSecond;
    const outcome = frameOutcome(frame, max);
    if (outcome === 'refuse') return this.#refuse(ports, data, isBinary, frame - max, now);
    if (outcome === 'close') return this.#close(ports, frame, max);
    if (outcome === 'drop') return undefined;
    const chunks = ports.chunks ?? new ChunkAssembler();
    const reading = readClientFrame(data, isBinary, chunks, this.#maxFrameBytes);
    if (reading.kind === 'ignored') return undefined;
    // A chunk of a message still incomplete, or a host without chunks (API Gateway), which
    // refuses it.
    if (reading.kind === 'pending') {
      return ports.chunks ? undefined : error(ports, chunkedRefused(), {});
    }
    if (reading.kind === 'error') return error(ports, reading.error, reading.target);
    return this.#dispatch(who, ports, reading.message);
  }

  /**
   * A frame past the connection's rate, the `refused`th of its second: dropped, and answered
   * with RATE_LIMITED, naming its request, only for the first {@link REFUSALS_ANSWERED} refused
   * frames of the second — a client that sends on is not sent a reply per frame, which would
   * cost the host more than the frames. Frames counted side by side have their own numbers, so
   * a host that handles them so (a Lambda per API Gateway frame) answers as few.
   */
  #refuse(
    ports: SessionPorts,
    data: Buffer,
    isBinary: boolean,
    refused: number,
    now: number,
  ): Promise<void> | undefined {
    if (refused > REFUSALS_ANSWERED) return undefined;
    // Read only to name the request refused: a dropped chunk is not kept for its message.
    const reading = readClientFrame(data, isBinary, new ChunkAssembler(), this.#maxFrameBytes);
    const target =
      reading.kind === 'message'
        ? targetOf(reading.message)
        : reading.kind === 'error'
          ? reading.target
          : {};
    const { maxFramesPerSecond } = this.options.limits;
    return error(ports, rateLimited(maxFramesPerSecond, 1000 - (now % 1000)), target);
  }

  /**
   * The frame past twice the rate in its second: the client sends on regardless of the
   * refusals, so the host closes the connection (1008, or through `DeleteConnection` on API
   * Gateway), which costs it nothing more per frame. Frames after it are dropped.
   */
  #close(ports: SessionPorts, frame: number, max: number): Promise<void> | undefined {
    const closing = ports.close(tooManyFrames(max, frame));
    return closing instanceof Promise ? closing : undefined;
  }

  #dispatch(
    who: SessionCaller,
    ports: SessionPorts,
    message: Exclude<ClientMessage, { type: 'chunk' }>,
  ): Promise<void> | undefined {
    const target = targetOf(message);
    if (message.type !== 'ack' && message.type !== 'acks' && message.type !== 'received') {
      return this.#dispatchAsync(who, ports, message, target);
    }
    try {
      const { subscriptions } = ports;
      if (message.type === 'ack') subscriptions.ack?.(message.id, message.version);
      else if (message.type === 'received') subscriptions.received?.(message.frames);
      else for (const id in message.versions) subscriptions.ack?.(id, message.versions[id]!);
      return undefined;
    } catch (caught) {
      return error(ports, this.#told(caught, message.type), target);
    }
  }

  /**
   * What the client is told of a failure: a Baton error as it is; a surprise (a driver's error,
   * which may name a host, an ARN or a password) without its text, which goes to the log.
   */
  #told(caught: unknown, frame: string): BatonError {
    return withheld(toBatonError(caught), (error) =>
      this.#logger.error('a client frame failed', { frame, error }),
    );
  }

  async #dispatchAsync(
    who: SessionCaller,
    ports: SessionPorts,
    message: Exclude<ClientMessage, { type: 'chunk' | 'ack' | 'acks' | 'received' }>,
    target: ErrorTarget,
  ): Promise<void> {
    try {
      switch (message.type) {
        case 'subscribe':
          await this.#subscribe(who, ports, message);
          break;
        case 'unsubscribe':
          await ports.subscriptions.close(message.id);
          break;
        case 'ping':
          await ports.renew?.();
          await ports.reply({ v: PROTOCOL_VERSION, type: 'pong', t: message.t });
          break;
        case 'send':
        case 'ask':
          await this.#request(who, ports, message);
          break;
      }
    } catch (caught) {
      await error(ports, this.#told(caught, message.type), target);
    }
  }

  async #subscribe(who: SessionCaller, ports: SessionPorts, message: SubscribeMessage) {
    const { id, query, args, resume } = message;
    // The access rule every door shares: an unknown or internal query, or one whose `authorize`
    // refuses this caller, is FORBIDDEN; bad args are INVALID_PAYLOAD.
    const resolved = resolveInstanceKey(this.#queries, this.#scope, {
      query,
      args,
      identity: who.identity,
      caller: who.caller,
    });
    const { maxSubscriptions } = this.options.limits;
    if ((await ports.subscriptions.countBeside(id)) >= maxSubscriptions) {
      throw tooManySubscriptions(maxSubscriptions);
    }
    await ports.subscriptions.open({ id, query, args, resolved, resume });
  }

  /**
   * Enqueues a `send` or `ask` through the core client with the frame's idempotency key (scoped
   * by target and caller: one user can neither shadow nor read another's) and answers
   * `accepted`. An `ask`, or a `send` with `visible`, waits for its outcome through the host,
   * the wait prepared before the message is enqueued and after the caller is let through: a
   * refused request costs the host no wait, no outcome read and no write.
   */
  async #request(who: SessionCaller, ports: SessionPorts, message: SendMessage | AskMessage) {
    const { requestId, to, name, payload, idempotencyKey } = message;
    const parsed = parseActorId(to);
    const ref = { id: to, type: parsed?.type ?? '', key: parsed?.key ?? '' };
    const options = {
      idempotencyKey,
      caller: who.caller,
      ...(message.traceparent === undefined ? {} : { traceparent: message.traceparent }),
    };
    // The client's checks first (it makes them again as it sends): a malformed id is
    // INVALID_REF; an unknown or internal message, one its `authorize` refuses or a callback
    // whose token names no pending callback, FORBIDDEN; a bad payload INVALID_PAYLOAD.
    await this.options.client.check(ref, name, payload, options);
    const messageId = ingressMessageId(to, idempotencyKey, who.caller);
    const kind = message.type === 'ask' ? 'ask' : message.visible === true ? 'visible' : undefined;
    let wait: OutcomeWait | undefined;
    let sent: SendResult;
    if (kind) {
      const fingerprint = messageFingerprint(name, payload);
      wait = await ports.outcomes.expect({ kind, requestId, messageId, to, name, fingerprint });
    }
    try {
      sent = await this.options.client.send(ref, name as never, payload as never, {
        ...options,
        // Its caller waits for its outcome: told DEAD_LETTERED, it may act on that answer.
        ...(kind === undefined ? {} : { awaited: true }),
      });
    } catch (caught) {
      await wait?.cancel();
      throw caught;
    }
    await ports.reply({ v: PROTOCOL_VERSION, type: 'accepted', requestId, messageId });
    await wait?.accepted(sent.sentAt);
  }
}

/** Where an error about `message` goes: its subscription or request, when it names one. */
function targetOf(message: Exclude<ClientMessage, { type: 'chunk' }>): ErrorTarget {
  if (message.type === 'subscribe') return { id: message.id };
  if (message.type === 'send' || message.type === 'ask') return { requestId: message.requestId };
  return {};
}

async function error(ports: SessionPorts, problem: BatonError, target: ErrorTarget) {
  await ports.reply({ v: PROTOCOL_VERSION, type: 'error', ...target, error: problem.toJSON() });
}

function chunkedRefused(): BatonError {
  return new BatonError(
    ErrorCode.MESSAGE_TOO_LARGE,
    'chunked client messages are not supported over API Gateway, which takes messages up to 128 KB: send a smaller message, or large data by reference',
    { details: { reason: ProtocolErrorReason.CHUNKED_MESSAGE_TOO_LARGE, limit: MAX_FRAME_BYTES } },
  );
}
