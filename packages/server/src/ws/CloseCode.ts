/**
 * Close codes the server uses: its own (4xxx), and the standard ones it closes with for a reason
 * of its (1008); besides, 1001 when the server closes, 1009 for a frame past 8 × `maxFrameBytes`.
 *
 * @example
 * socket.onclose = (event) => {
 *   if (event.code === CloseCode.UNAUTHORIZED) showSignIn(event.reason);
 * };
 */
export const CloseCode = {
  /** The auth hook refused the connection; the reason is only "unauthorized". */
  UNAUTHORIZED: 4401,
  /** No frame arrived within `leaseMs`: the connection's lease lapsed. */
  LEASE_EXPIRED: 4408,
  /** The identity the auth hook gave ended (`validUntil`): connect again with a fresh token. */
  AUTH_EXPIRED: 4440,
  /**
   * The user holds `maxConnectionsPerUser` connections already, or, for a connection with no
   * user, the server holds `maxAnonymousConnections` of them; or the server is running the `auth`
   * hook for `maxPendingAuth` connection attempts already. Connect again later.
   */
  TOO_MANY_CONNECTIONS: 4429,
  /**
   * The `auth` hook did not settle within `authTimeoutMs` (a token check that hangs, e.g. on a
   * JWKS fetch): connect again later.
   */
  AUTH_TIMEOUT: 4504,
  /** The client left over `maxUnreadBytes` unread in its socket: read it, then connect again. */
  NOT_READING: 4413,
  /**
   * Policy violation: the client sent more than twice `maxFramesPerSecond` frames in one second
   * (each past the cap was refused with RATE_LIMITED, and it sent on). Connect again, and send
   * fewer.
   */
  TOO_MANY_FRAMES: 1008,
} as const;
