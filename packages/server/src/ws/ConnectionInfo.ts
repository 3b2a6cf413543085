/**
 * A snapshot of one open connection.
 *
 * @example
 * for (const c of server.connections()) console.log(c.id, c.subscriptions, c.identity);
 */
export interface ConnectionInfo {
  /** Unique within the server, in connection order. */
  readonly id: number;
  /** What the auth hook returned. */
  readonly identity: unknown;
  /** Live subscriptions. */
  readonly subscriptions: number;
  /** When the last frame arrived (epoch ms, on the engine's clock). */
  readonly lastFrameAt: number;
  /**
   * Bytes written to the client that it has not read yet, as far as this process holds them
   * (past the operating system's buffers). Over `maxUnreadBytes`, the client's frames wait.
   */
  readonly unreadBytes: number;
}
