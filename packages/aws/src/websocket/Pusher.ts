import {
  ApiGatewayManagementApiClient,
  DeleteConnectionCommand,
  PostToConnectionCommand,
} from '@aws-sdk/client-apigatewaymanagementapi';
import { type Logger, toBatonError } from '@baton/core';
import type { Clock } from '@baton/core/adapter';
import { encodeMessage, MAX_FRAME_BYTES, type ServerMessage, splitFrame } from '@baton/protocol';
import { awsErrorName } from '../internal/unavailable.ts';
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
 * over 128 KB goes out as chunk frames; a connection whose lease lapsed is skipped; a
 * `GoneException` removes the connection and everything it held; other failures are logged and
 * do not stop the other pushes. Connection items are read once per invocation.
 *
 * @example
 * const pusher = new Pusher(context);
 * await pusher.send('abc=', { v: 1, type: 'pong', t: 1 });
 */
export class Pusher {
  readonly #connections = new Map<string, Promise<ConnectionItem | undefined>>();

  constructor(private readonly context: PusherContext) {}

  /** The connection, if it is registered (cached for this invocation). */
  connection(connectionId: string): Promise<ConnectionItem | undefined> {
    let found = this.#connections.get(connectionId);
    if (!found) {
      found = this.context.registry.connections.get(connectionId);
      this.#connections.set(connectionId, found);
    }
    return found;
  }

  /** Sends `frame`; true if every piece was posted. Never throws. */
  async send(connectionId: string, frame: ServerMessage): Promise<boolean> {
    const { logger, clock } = this.context;
    try {
      const connection = await this.connection(connectionId);
      if (!connection || connection.expiresAt <= clock.now()) return false;
      const client = this.context.clientFor(this.context.endpoint ?? connection.endpoint);
      for (const piece of splitFrame(encodeMessage(frame), MAX_FRAME_BYTES)) {
        await client.send(
          new PostToConnectionCommand({ ConnectionId: connectionId, Data: Buffer.from(piece) }),
        );
      }
      return true;
    } catch (error) {
      if (awsErrorName(error) === 'GoneException') {
        logger.info('connection gone: removing it', { connectionId });
        this.#connections.set(connectionId, Promise.resolve(undefined));
        await this.context.registry.removeConnection(connectionId).catch((cause: unknown) => {
          logger.warn('could not remove a gone connection', {
            connectionId,
            error: toBatonError(cause).message,
          });
        });
      } else {
        logger.warn('push failed', {
          connectionId,
          type: frame.type,
          error: `${awsErrorName(error)}: ${toBatonError(error).message}`,
        });
      }
      return false;
    }
  }

  /**
   * Closes a connection through `DeleteConnection` (a gone one is fine) and removes it from the
   * registry.
   */
  async disconnect(connectionId: string): Promise<void> {
    const connection = await this.connection(connectionId).catch(() => undefined);
    const endpoint = this.context.endpoint ?? connection?.endpoint;
    if (endpoint) {
      try {
        await this.context
          .clientFor(endpoint)
          .send(new DeleteConnectionCommand({ ConnectionId: connectionId }));
      } catch (error) {
        if (awsErrorName(error) !== 'GoneException') {
          this.context.logger.warn('DeleteConnection failed', {
            connectionId,
            error: toBatonError(error).message,
          });
        }
      }
    }
    this.#connections.set(connectionId, Promise.resolve(undefined));
    await this.context.registry.removeConnection(connectionId);
  }
}
