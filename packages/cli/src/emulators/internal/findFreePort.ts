import { createServer } from 'node:net';

/**
 * Ports this process has handed out. The OS may offer a just-closed port again; two emulators
 * started at once must never get the same one (DynamoDB Local binds every interface, so a
 * clash could route one emulator's requests to the other).
 */
const handedOut = new Set<number>();

/** A port that was free on `host` a moment ago and not handed out before by this process. */
export async function findFreePort(host = '127.0.0.1'): Promise<number> {
  for (;;) {
    const port = await probeFreePort(host);
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
}

/** Listen on port 0, read the port, close. */
function probeFreePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ host, port: 0, exclusive: true }, () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error('no port assigned'))));
    });
  });
}
