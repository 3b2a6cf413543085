import { type Logger, toBatonError } from '@baton/core';

/** What a client whose connection the app's `auth` refused is told, on every door. */
export const UNAUTHORIZED = 'unauthorized';

/**
 * Refuses a connection the app's `auth` threw for: the reason goes to the host's log, the client
 * is told only {@link UNAUTHORIZED} (as on the HTTP ingress), so an `auth` hook's error (a
 * database down, which check failed) tells an outsider nothing.
 *
 * @example
 * try { identity = await auth(request); } catch (error) { return ws.close(4401, authRefusal(error, logger)); }
 */
export function authRefusal(error: unknown, logger: Logger): string {
  const reason = toBatonError(error).message.replace(/^unexpected error: /, '');
  logger.info('connection refused by auth', { reason });
  return UNAUTHORIZED;
}
