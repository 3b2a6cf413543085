import {
  ApiGatewayManagementApiClient,
  DeleteConnectionCommand,
  PostToConnectionCommand,
} from '@aws-sdk/client-apigatewaymanagementapi';
import { type BatonError, type Logger, toBatonError } from '@baton/core';
import type { Clock } from '@baton/core/adapter';
import {
  encodeMessage,
  MAX_FRAME_BYTES,
  PROTOCOL_VERSION,
  type ServerMessage,
  splitFrame,
} from '@baton/protocol';
import { authExpired, authLapsed } from '@baton/server/session';
import { awsErrorName } from '../internal/unavailable.ts';
import { type PostOutcome, type PushOptions, PushQueue } from './PushQueue.ts';
import type { ConnectionRegistry } from './registry/ConnectionRegistry.ts';
import type { ConnectionItem } from './registry/Connections.ts';

/**
 * Makes the management API client for an endpoint `https://{domain}/{stage}`.
 *
 * @example
 * const managementClient: ManagementClientFactory = (endpoint) =>
 *   new ApiGatewayManagementApiClient({ endpoint });
 */
export type ManagementClientFactory = (endpoint: string) => ApiGatewayManagementApiClient;

/**
 * What every push of a handler shares (for the life of the Lambda container).
 *
 * @example
 * const pusher = new Pusher(resolveReactiveOptions(options).pushes);
 */
export interface PusherContext {
  readonly registry: ConnectionRegistry;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Overrides the endpoint each connection recorded at `$connect`. */
  readonly endpoint: string | undefined;
  readonly clientFor: (endpoint: string) => ApiGatewayManagementApiClient;
  /** Concurrency, pacing and backoff of `PostToConnection` calls. */
  readonly options?: PushOptions;
}

/**
 * A memo of management clients, one per endpoint.
 *
 * @example
 * const clientFor = managementClients();
 * clientFor('https://abc.execute-api.eu-west-1.amazonaws.com/prod');
 */
export function managementClients(
  factory: ManagementClientFactory = (endpoint) => new ApiGatewayManagementApiClient({ endpoint }),
): (endpoint: string) => ApiGatewayManagementApiClient {
  const clients = new Map<string, ApiGatewayManagementApiClient>();
  return (endpoint) => {
    const known = clients.get(endpoint);
    if (known) return known;
    const client = factory(endpoint);
    clients.set(endpoint, client);
    return client;
  };
}

/**
 * Pushes frames to connections through `PostToConnection`, for one handler invocation: a frame
 * over 128 KB goes out as chunk frames; a connection whose lease lapsed is skipped; one whose
 * identity ended (`validUntil`), by the time a push is queued or posted, is told so and closed; a
 * `GoneException` removes the connection and everything it held (its other pushes stop, the
 * others go on); a throttled call is retried after a pause; a call API Gateway failed (a 5xx)
 * closes its connection, so that the client resumes and gets the newest result; other failures
 * are logged. None stops the other pushes. Calls go through a {@link PushQueue}: bounded in
 * number, paced, and a subscription's updates coalesced so that its newest one arrives.
 * Connection items are read once per invocation, a fan-out's a hundred to a call
 * ({@link prefetch}).
 *
 * @example
 * const pusher = new Pusher(context);
 * await pusher.send('abc=', { v: 1, type: 'pong', t: 1 });
 */
export class Pusher {
  readonly #connections = new Map<string, Promise<ConnectionItem | undefined>>();
  /** Removals of gone connections, by id: a push to one waits for it, the others do not. */
  readonly #removals = new Map<string, Promise<void>>();
  readonly #queue: PushQueue;

  constructor(private readonly context: PusherContext) {
    this.#queue = new PushQueue((id, piece) => this.#post(id, piece), context.options ?? {}, {
      gone: (connectionId) => this.#removeGone(connectionId),
      failed: (connectionId, error) => {
        context.logger.warn('push failed', {
          connectionId,
          error: `${awsErrorName(error)}: ${toBatonError(error).message}`,
        });
        if (isServerFault(error)) this.#closeBehind(connectionId);
      },
    });
  }

  /** `PostToConnection` calls refused as throttled in this invocation (each retried). */
  get throttledCalls(): number {
    return this.#queue.throttledCalls;
  }

  /** The connection, if it is registered (cached for this invocation). */
  connection(connectionId: string): Promise<ConnectionItem | undefined> {
    let found = this.#connections.get(connectionId);
    if (!found) {
      found = this.context.registry.connections.get(connectionId);
      this.#connections.set(connectionId, found);
    }
    return found;
  }

  /**
   * Reads the connections among `connectionIds` not read yet in this invocation, 100 a call, so
   * that a fan-out's pushes read none one by one. If that read fails, each push reads its own.
   */
  async prefetch(connectionIds: readonly string[]): Promise<void> {
    const missing = [...new Set(connectionIds)].filter((id) => !this.#connections.has(id));
    if (missing.length === 0) return;
    let found: Map<string, ConnectionItem>;
    try {
      found = await this.context.registry.connections.getMany(missing);
    } catch (error) {
      this.context.logger.warn('could not read the connections to push to at once', {
        connections: missing.length,
        error: `${awsErrorName(error)}: ${toBatonError(error).message}`,
      });
      return;
    }
    for (const id of missing) {
      if (!this.#connections.has(id)) this.#connections.set(id, Promise.resolve(found.get(id)));
    }
  }

  /** Sends `frame`; true if every piece was posted. Never throws. */
  async send(connectionId: string, frame: ServerMessage): Promise<boolean> {
    let text: string;
    try {
      text = encodeMessage(frame);
    } catch (error) {
      this.context.logger.warn('push failed', {
        connectionId,
        type: frame.type,
        error: toBatonError(error).message,
      });
      return false;
    }
    return this.sendText(connectionId, undefined, text);
  }

  /**
   * Sends an encoded frame; a newer one under the same `key` (e.g. a subscription's id) that
   * comes before it went out replaces it. True if it, or the newer one, was posted. Never throws.
   */
  async sendText(connectionId: string, key: string | undefined, text: string): Promise<boolean> {
    try {
      const connection = await this.connection(connectionId);
      if (!connection || connection.expiresAt <= this.context.clock.now()) return false;
      if (this.#identityEnded(connection)) {
        await this.#removals.get(connectionId);
        return false;
      }
    } catch (error) {
      this.context.logger.warn('push failed', {
        connectionId,
        error: `${awsErrorName(error)}: ${toBatonError(error).message}`,
      });
      return false;
    }
    const outcome: PostOutcome = await this.#queue.push(
      connectionId,
      key,
      splitFrame(text, MAX_FRAME_BYTES),
    );
    // A gone connection is removed, one a push failed to reach is closed: before the call ends.
    if (outcome !== 'sent') await this.#removals.get(connectionId);
    return outcome === 'sent';
  }

  /** Posts a piece of a push, unless the connection's identity ended while it waited its turn. */
  async #post(connectionId: string, piece: string): Promise<void> {
    const connection = await this.connection(connectionId);
    if (connection && this.#identityEnded(connection)) return;
    await this.#postNow(connectionId, piece);
  }

  async #postNow(connectionId: string, piece: string): Promise<void> {
    const connection = await this.connection(connectionId);
    const endpoint = this.context.endpoint ?? connection?.endpoint;
    if (!endpoint) return;
    await this.context
      .clientFor(endpoint)
      .send(new PostToConnectionCommand({ ConnectionId: connectionId, Data: Buffer.from(piece) }));
  }

  /**
   * Whether the connection's identity ended (`validUntil`): if so, it is told why and closed
   * (once per invocation), so that its client connects again with a fresh token at once.
   */
  #identityEnded(connection: ConnectionItem): boolean {
    const { connectionId, validUntil } = connection;
    if (!authLapsed(validUntil, this.context.clock.now())) return false;
    if (!this.#removals.has(connectionId)) {
      this.#removals.set(connectionId, this.closeWith(connectionId, authExpired(validUntil!)));
    }
    return true;
  }

  #removeGone(connectionId: string): void {
    const { logger, registry } = this.context;
    logger.info('connection gone: removing it', { connectionId });
    this.#connections.set(connectionId, Promise.resolve(undefined));
    const removal = registry.removeConnection(connectionId).catch((cause: unknown) => {
      logger.warn('could not remove a gone connection', {
        connectionId,
        error: toBatonError(cause).message,
      });
    });
    this.#removals.set(connectionId, removal);
  }

  /**
   * Closes a connection whose push API Gateway failed (a 5xx, past the SDK's retries): its
   * subscriber would keep an older result until the next change. Closed, its client reconnects
   * and resumes from the version it holds, and gets the newest. Once per connection. If the
   * close fails too, the connection stays registered: a later push may reach it.
   */
  #closeBehind(connectionId: string): void {
    if (this.#removals.has(connectionId)) return;
    const { logger, registry } = this.context;
    logger.warn('closing a connection a push failed to reach: its client resumes', {
      connectionId,
    });
    const closing = this.#deleteConnection(connectionId).then(async (closed) => {
      if (!closed) return;
      this.#connections.set(connectionId, Promise.resolve(undefined));
      await registry.removeConnection(connectionId);
    });
    this.#removals.set(
      connectionId,
      closing.catch((cause: unknown) => {
        logger.warn('could not close a connection a push failed to reach', {
          connectionId,
          error: toBatonError(cause).message,
        });
      }),
    );
  }

  /** `DeleteConnection`; true if the connection is closed (or was gone already). */
  async #deleteConnection(connectionId: string): Promise<boolean> {
    const connection = await this.connection(connectionId).catch(() => undefined);
    const endpoint = this.context.endpoint ?? connection?.endpoint;
    if (!endpoint) return false;
    try {
      await this.context
        .clientFor(endpoint)
        .send(new DeleteConnectionCommand({ ConnectionId: connectionId }));
      return true;
    } catch (error) {
      if (awsErrorName(error) === 'GoneException') return true;
      this.context.logger.warn('DeleteConnection failed', {
        connectionId,
        error: toBatonError(error).message,
      });
      return false;
    }
  }

  /**
   * Tells a connection why it is closed (an `error` frame, posted past the checks of `send`:
   * its identity may have ended), then closes it as {@link disconnect} does: for an identity
   * that ended, or a policy the client broke (API Gateway sends no close code). Never throws.
   */
  async closeWith(connectionId: string, error: BatonError): Promise<void> {
    const frame = encodeMessage({ v: PROTOCOL_VERSION, type: 'error', error: error.toJSON() });
    await this.#postNow(connectionId, frame).catch((cause: unknown) => {
      this.context.logger.debug('could not tell a connection why it is closed', {
        connectionId,
        error: toBatonError(cause).message,
      });
    });
    await this.disconnect(connectionId).catch((cause: unknown) => {
      this.context.logger.warn('could not close a connection', {
        connectionId,
        error: toBatonError(cause).message,
      });
    });
  }

  /**
   * Closes a connection through `DeleteConnection` (a gone one is fine) and removes it from the
   * registry.
   */
  async disconnect(connectionId: string): Promise<void> {
    await this.#deleteConnection(connectionId);
    this.#connections.set(connectionId, Promise.resolve(undefined));
    await this.context.registry.removeConnection(connectionId);
  }
}

/** Whether API Gateway answered a call with a server error (5xx): the call may work again. */
function isServerFault(error: unknown): boolean {
  const status = (error as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode;
  return status !== undefined && status >= 500;
}
