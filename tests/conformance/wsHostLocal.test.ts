/** The host conformance suite (wsHostSuite.ts) against the local WebSocket host. */
import { silentLogger } from '@baton/core';
import { startEmbedded } from '@baton/embedded';
import { createLocalServer } from '@baton/server/ws';
import app, { frozenClock, LIMITS } from './wsHostApp.ts';
import { wsHostSuite } from './wsHostSuite.ts';

wsHostSuite('the local host', async () => {
  const runtime = startEmbedded({ actors: app.actors, logger: silentLogger });
  const server = await createLocalServer({
    actors: app.actors,
    queries: app.queries,
    backend: runtime,
    auth: app.auth!,
    logger: silentLogger,
    engine: { clock: frozenClock },
    ...LIMITS,
  });
  return {
    url: server.url,
    oversized: 'answered',
    async stop() {
      await server.close();
      await runtime.stop();
    },
  };
});
