/**
 * The app process of `baton dev`: the user's app (bundled together with this file) on its
 * backend, with worker loops, Baton's WebSocket host, and an HTTP server for the ingress and the
 * inspector's actions. The supervisor starts it, forwards its one port to the two servers here,
 * and restarts it on a code change or a crash; everything committed is in the backend's data.
 */
import type { Server } from 'node:http';
import { type BatonApp, BatonError, ErrorCode, toBatonError } from '@baton/core';
import { createEngine, startWorkerLoops, Worker } from '@baton/core/engine';
import { createLocalServer, type LocalServer } from '@baton/server/ws';
import { DEFAULT_EXPORT } from '../appEntry.ts';
import {
  CHILD_CONFIG_ENV,
  type ChildConfig,
  type ChildMessage,
  FORWARD_HEADER,
} from '../protocol.ts';
import { sameSecret } from '../secrets.ts';
import type { DevBackend } from './DevBackend.ts';
import { initialStateProblems } from './initialStates.ts';
import { inspectorChannel } from './inspectorChannel.ts';
import { inspectorFollowUp } from './inspectorFollowUp.ts';
import { inspectorSnapshot } from './inspectorSnapshot.ts';
import { readableLogger } from './readableLogger.ts';
import { resumePausedWorkflows } from './resumePaused.ts';
import { serveHttp } from './serveHttp.ts';
import { TurnLog } from './TurnLog.ts';
import { TurnRecorder } from './TurnRecorder.ts';

/**
 * Runs the app on the backend `openBackend` opens (the bundle passes the one `--backend` names,
 * so that an embedded app's bundle holds nothing of AWS).
 */
export async function runApp(
  app: BatonApp,
  openBackend: (config: ChildConfig) => DevBackend | Promise<DevBackend>,
): Promise<void> {
  // Ctrl-C reaches the whole process group: the supervisor decides when this process stops.
  process.on('SIGINT', () => {});
  const config = JSON.parse(process.env[CHILD_CONFIG_ENV] ?? '{}') as ChildConfig;
  // It holds this run's secrets: not for the processes the app may start.
  delete process.env[CHILD_CONFIG_ENV];
  let stopping = false;
  let stop = async () => {};
  const shutdown = () => {
    if (stopping) return;
    stopping = true;
    stop().finally(() => process.exit(0));
  };
  process.on('message', (message: { type?: string }) => {
    if (message?.type === 'stop') shutdown();
  });
  process.on('SIGTERM', shutdown);
  // The supervisor is gone (even SIGKILLed): nothing would forward to this process any more.
  process.on('disconnect', shutdown);
  try {
    stop = await start(checkedApp(app), config, openBackend);
    tell({ type: 'ready', ...ports });
  } catch (error) {
    tell({ type: 'failed', message: toBatonError(error).message });
    process.exit(1);
  }
}

/** The entry's default export, if it is an app; else the error that says what it is instead. */
function checkedApp(app: unknown): BatonApp {
  const made = app as Partial<BatonApp> | null | undefined;
  // defineApp fills in every list: an object written by hand lacks some (often workflows).
  const lists = ['actors', 'queries', 'workflows', 'effects'] as const;
  const missing = lists.filter((list) => !Array.isArray(made?.[list]));
  if (missing.length === 0) return app as BatonApp;
  const what =
    typeof app === 'object' && app !== null
      ? `an object defineApp did not make (it has no ${missing.join(', ')})`
      : `${app === null ? 'null' : typeof app}`;
  throw new BatonError(
    ErrorCode.INVALID_ARGUMENT,
    `its default export is ${what}: ${DEFAULT_EXPORT}`,
  );
}

const ports = { httpPort: 0, wsPort: 0 };
/** The identity of the inspector's own connection: no user's, so the app's handlers grant it nothing. */
const INSPECTOR_IDENTITY = { inspector: true } as const;

function tell(message: ChildMessage): void {
  process.send?.(message);
}

async function start(
  app: BatonApp,
  config: ChildConfig,
  openBackend: (config: ChildConfig) => DevBackend | Promise<DevBackend>,
): Promise<() => Promise<void>> {
  const logger = readableLogger({ level: config.logLevel ?? 'info' });
  // Told at load rather than at a new actor's first message; the app runs on.
  for (const problem of initialStateProblems(app.actors)) logger.warn(problem);
  const backend = await openBackend(config);
  const turns = new TurnLog();
  let server: LocalServer | undefined;
  const startedAt = Date.now();
  const channel = inspectorChannel(backend, config.inspectorToken, () =>
    inspectorSnapshot({ app, backend, turns, startedAt, server: () => server }),
  );
  let crash: { message: string | undefined } | undefined;
  const recorder = new TurnRecorder(turns, (_commit, names) => {
    if (crash && (crash.message === undefined || names.includes(crash.message))) {
      // Committed (and journaled), not yet drained nor acknowledged: the worst moment to die.
      process.kill(process.pid, 'SIGKILL');
    }
    channel.pulse();
  });
  const engine = createEngine({
    actors: app.actors,
    effects: app.effects,
    store: backend.store,
    queue: backend.queue,
    logger,
    ...recorder.hooks,
  });
  const timers = backend.fireTimers?.(engine);
  // Without a timer pump (local-aws) the sweeper fires due timers, so sweeps are frequent.
  const loops = startWorkerLoops(new Worker(engine), {
    waitForWork: () => backend.waitForWork(),
    wake: () => backend.wake(),
    sweepIntervalMs: timers ? 10_000 : 1_000,
  });
  const workers = {
    async stop() {
      await timers?.stop();
      await loops.stop();
    },
  };
  const unsubscribe = backend.feed.subscribe(() => channel.pulse());
  // Depths, connections and subscriptions change without a commit: look every second.
  const poll = setInterval(() => channel.pulse(), 1000);
  let http: Server | undefined;
  try {
    server = await createLocalServer({
      actors: [...app.actors, channel.actor],
      queries: [...app.queries, channel.query],
      backend: { store: channel.store, queue: backend.queue, feed: channel.feed },
      // The page is on the supervisor's port, whose door checked its origin (and Host) before
      // forwarding; an upgrade that did not come through it is refused by `auth` below.
      allowedOrigins: () => true,
      // Only upgrades that the supervisor checked and forwarded; the app's auth sees the rest.
      auth: (request) => {
        const { [FORWARD_HEADER]: secret, ...headers } = request.headers;
        if (!sameSecret(secret, config.forwardSecret)) {
          throw new Error("connect through the port baton dev printed, not the app process's");
        }
        // The inspector's page, which alone has this run's token, whatever the app's auth asks.
        if (request.token !== undefined && sameSecret(request.token, config.inspectorToken)) {
          return INSPECTOR_IDENTITY;
        }
        return app.auth?.({ ...request, headers });
      },
      logger,
    });
    http = await serveHttp(app, backend, {
      forwardSecret: config.forwardSecret,
      logger,
      followUp: inspectorFollowUp(config.backend),
      armCrash(message) {
        if (config.backend === 'embedded' && config.dataDir === undefined) {
          throw new BatonError(
            ErrorCode.INVALID_STATE,
            'the app runs in memory (--in-memory): a crash would lose its state; restart without it',
          );
        }
        crash = { message };
      },
    });
  } catch (error) {
    await workers.stop();
    await backend.close();
    throw error;
  }
  // What a save was to fix goes on at once: a paused instance is replayed on this code.
  resumePausedWorkflows(app, backend).then(
    (resumed) => {
      if (resumed.length === 0) return;
      logger.info('replaying the paused workflow instances on this code', { instances: resumed });
    },
    (error: unknown) =>
      logger.warn('could not replay the paused workflow instances', {
        error: toBatonError(error).message,
      }),
  );
  ports.httpPort = (http.address() as { port: number }).port;
  ports.wsPort = server.port;
  return async () => {
    clearInterval(poll);
    unsubscribe();
    channel.close();
    http?.closeAllConnections();
    await new Promise<void>((resolve) => http?.close(() => resolve()));
    await server?.close();
    await workers.stop();
    await backend.close();
  };
}
