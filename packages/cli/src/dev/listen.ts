import type { Server } from 'node:http';
import { BatonError, ErrorCode } from '@baton/core';

/** The host `baton dev` serves on: this machine only. */
export const HOST = '127.0.0.1';

/**
 * Listens on 127.0.0.1:`port`; rejects with what to do when it cannot: `whose` follows the port
 * in the message, `option` is the option that chooses it.
 */
export async function listen(
  server: Server,
  port: number,
  whose: string,
  option: string,
): Promise<void> {
  try {
    await new Promise<void>((done, reject) => {
      server.once('error', reject).listen(port, HOST, done);
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      code === 'EADDRINUSE'
        ? `port ${port}${whose} is in use: stop what uses it, or pass ${option} <another> (0 picks a free one)`
        : `cannot listen on ${HOST}:${port}${whose}: ${(error as Error).message}`,
    );
  }
}
