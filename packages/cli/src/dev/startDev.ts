import { existsSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename, dirname, join, relative } from 'node:path';
import type { Duplex } from 'node:stream';
import { BatonError, ErrorCode } from '@baton/core';
import { AppSupervisor } from './AppSupervisor.ts';
import { type Bundle, buildErrorText, bundlePage, ownModule } from './bundle.ts';
import { DevDoor } from './DevDoor.ts';
import type { DevOptions } from './DevOptions.ts';
import { FolderWatcher, watchedFolders } from './FolderWatcher.ts';
import { forwardRequest, forwardUpgrade } from './forward.ts';
import { HOST, listen } from './listen.ts';
import { LOCAL_TARGET_PATH, localTarget } from './localTarget.ts';
import { appPageHtml, buildErrorScript, inspectorHtml, landingHtml } from './pages.ts';
import type { ChildConfig } from './protocol.ts';
import { refusalNotes, refuseRequest, refuseUpgrade } from './refusals.ts';
import { newSecret } from './secrets.ts';
import { findTypeProject, TypeChecker } from './TypeChecker.ts';

/** A running `baton dev`. */
export interface DevServer {
  /** `http://127.0.0.1:<port>`: the app's page, its WebSocket and ingress. */
  readonly origin: string;
  /** `http://127.0.0.1:<inspector port>`: the inspector, on an origin of its own. */
  readonly inspectorOrigin: string;
  /** The app process's pid now (it changes on reload and restart). */
  appPid(): number | undefined;
  close(): Promise<void>;
}

/**
 * Serves an app on one port: its page, the WebSocket and the HTTP ingress; and the inspector on
 * another (`--inspector-port`, by default the next one). The inspector acts as trusted code, so
 * it is an origin of its own: a script on the app's page (an app's bug, say) may open the
 * inspector in a window, but not read it, nor its token. The app itself runs in a child process
 * (see {@link AppSupervisor}) that is replaced on a code change and restarted after a crash;
 * this process keeps the ports, so pages reconnect to the same URL and resume.
 */
export async function startDev(
  options: DevOptions,
  log: (line: string) => void = (line) => console.log(line),
): Promise<DevServer> {
  const appDir = dirname(options.entry);
  const pageEntry = join(appDir, 'web', 'page.tsx');
  const title = `${basename(dirname(appDir))} · baton dev`;
  // This run's secrets: the inspector's token (in its page only), the app page's (it arms a
  // crash, nothing else), and the proof that a request reaching the app process came through
  // this one (never leaves the two processes).
  const inspectorToken = newSecret();
  const crashToken = newSecret();
  const forwardSecret = newSecret();
  let config: ChildConfig = {
    backend: options.backend,
    forwardSecret,
    inspectorToken,
    logLevel: options.logLevel ?? 'info',
    ...(options.dataDir === undefined ? {} : { dataDir: options.dataDir }),
  };
  let stopEmulators = async () => {};
  if (options.backend === 'local-aws') {
    const { startLocalAws } = await import('./startLocalAws.ts');
    const aws = await startLocalAws(options.entry, log);
    config = { ...config, aws: aws.config };
    stopEmulators = aws.stop;
  }
  const supervisor = new AppSupervisor(options.entry, config, log);
  const types =
    options.typeCheck === false
      ? { unchecked: '--typecheck off' }
      : findTypeProject(options.entry, shortPath);
  const typeChecker =
    'tsc' in types ? new TypeChecker(types, log, () => supervisor.running) : undefined;
  const pages = new Map<string, Bundle | { error: string }>();
  /** The inputs of each page's last good build: kept through a failed one, to watch them. */
  const pageInputs = new Map<string, ReadonlySet<string>>();
  const build = async (path: string, entry: string) => {
    try {
      const bundle = await bundlePage(entry);
      pages.set(path, bundle);
      pageInputs.set(path, bundle.inputs);
    } catch (error) {
      const text = buildErrorText(error);
      pages.set(path, { error: text });
      log(`${shortPath(entry)} does not build; fix it and save:\n${text}`);
    }
  };
  const hasPage = existsSync(pageEntry);
  const inspectorEntry = ownModule('inspector', 'inspectorPage');
  await Promise.all([
    hasPage ? build('/page.js', pageEntry) : undefined,
    build('/_baton/inspector.js', inspectorEntry),
  ]);
  try {
    await supervisor.start();
  } catch {
    // The app process first, then what it runs on.
    await supervisor.close();
    await stopEmulators();
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      'the app did not start (see above): fix it and run baton dev again',
    );
  }

  const upgraded = new Set<Duplex>();
  // A refusal's reason is printed here, once each (see refusals.ts).
  const noteRefusal = refusalNotes(log);
  let origin = '';
  let inspectorOrigin = '';
  let door: DevDoor | undefined;
  let inspectorDoor: DevDoor | undefined;
  const webSocketUrl = (of: string) => of.replace(/^http/, 'ws');
  const http = createServer((request, response) => {
    route(request, response, door!).catch(() => response.destroy());
  });
  const inspectorHttp = createServer((request, response) => {
    route(request, response, inspectorDoor!).catch(() => response.destroy());
  });
  /** Either port's requests, after its door: `door` tells which port it is. */
  const route = async (request: IncomingMessage, response: ServerResponse, door: DevDoor) => {
    const onInspector = door === inspectorDoor;
    const path = new URL(request.url ?? '/', origin).pathname;
    const answer = door.check({ method: request.method ?? 'GET', path, headers: request.headers });
    if (answer.kind === 'refuse') {
      noteRefusal(`${request.method} ${path}`, answer.message);
      return refuseRequest(response, answer.status, answer.message);
    }
    if (answer.kind === 'preflight') return response.writeHead(204, answer.headers).end();
    for (const [name, value] of Object.entries(answer.headers)) response.setHeader(name, value);
    const html = (body: string, headers: Record<string, string> = {}) =>
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...headers }).end(body);
    // Both pages hold a token: not cached, not framed by another page (no clickjacking).
    const tokenPage = {
      'cache-control': 'no-store',
      'content-security-policy': "frame-ancestors 'none'",
      'x-frame-options': 'DENY',
    };
    const inspectorUrl = `${inspectorOrigin}/`;
    if (onInspector) {
      // The door let through its page (at / and /_baton), its script and its actions only.
      if (request.method === 'GET' && !path.endsWith('.js')) {
        // Nor does a window that opened it keep a hold on it.
        return html(inspectorHtml(webSocketUrl(inspectorOrigin), inspectorToken), {
          ...tokenPage,
          'cross-origin-opener-policy': 'same-origin',
        });
      }
    } else if (request.method === 'GET' && path === '/') {
      return html(
        hasPage
          ? appPageHtml(title, webSocketUrl(origin), crashToken, inspectorUrl)
          : landingHtml(title, origin, inspectorUrl),
        tokenPage,
      );
    }
    if (request.method === 'GET' && path === LOCAL_TARGET_PATH) {
      const target = localTarget(config, inspectorUrl);
      return response
        .writeHead(target.status, {
          'content-type': 'application/json',
          'cache-control': 'no-store',
        })
        .end(JSON.stringify(target.body));
    }
    const page =
      request.method === 'GET' && (path === '/_baton/inspector.js') === onInspector
        ? pages.get(path)
        : undefined;
    if (page) {
      // A page that does not build shows its error: a 500 would leave it blank.
      return response
        .writeHead(200, {
          'content-type': 'text/javascript; charset=utf-8',
          'cache-control': 'no-store',
        })
        .end('error' in page ? buildErrorScript(page.error) : page.code);
    }
    const toApp =
      path === '/send' ||
      path === '/ask' ||
      path === '/outcome' ||
      path.startsWith('/outcome/') ||
      path.startsWith('/workflows/') ||
      path.startsWith('/_baton/');
    if (!toApp) {
      return response
        .writeHead(404, { 'content-type': 'text/plain' })
        .end(`no page ${path}: the app is at ${origin}/, the inspector at ${inspectorUrl}\n`);
    }
    const ports = await supervisor.ports();
    if (!ports) {
      return response.writeHead(503, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          error: {
            code: 'UNAVAILABLE',
            message:
              'the app is not running (it did not build or start): see the output of baton dev, fix the app and save',
          },
        }),
      );
    }
    forwardRequest(request, response, ports.httpPort, forwardSecret);
  };
  /** Either port's WebSocket (the inspector's live query goes over its own port's). */
  const upgrade =
    (door: () => DevDoor) => (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      socket.on('error', () => {});
      const answer = door().checkUpgrade(request.headers);
      if (answer.kind === 'refuse') {
        noteRefusal('a WebSocket', answer.message);
        refuseUpgrade(socket, answer.status, answer.message);
        return;
      }
      upgraded.add(socket);
      socket.once('close', () => upgraded.delete(socket));
      supervisor.ports().then((ports) => {
        if (!ports || socket.destroyed) return socket.destroy();
        forwardUpgrade(request, socket, head, ports.wsPort, forwardSecret);
      });
    };
  http.on(
    'upgrade',
    upgrade(() => door!),
  );
  inspectorHttp.on(
    'upgrade',
    upgrade(() => inspectorDoor!),
  );
  const inspectorPort = options.inspectorPort ?? (options.port === 0 ? 0 : options.port + 1);
  const listening = [
    listen(http, options.port, '', '--port'),
    listen(
      inspectorHttp,
      inspectorPort,
      options.inspectorPort === undefined ? " (the inspector's: the app's port + 1)" : '',
      '--inspector-port',
    ),
  ];
  const failed = (await Promise.allSettled(listening)).find(
    (result) => result.status === 'rejected',
  );
  if (failed) {
    for (const server of [http, inspectorHttp]) if (server.listening) server.close();
    await supervisor.close();
    await stopEmulators();
    throw failed.reason;
  }
  const { port } = http.address() as AddressInfo;
  origin = `http://${HOST}:${port}`;
  inspectorOrigin = `http://${HOST}:${(inspectorHttp.address() as AddressInfo).port}`;
  door = new DevDoor({
    serves: 'app',
    port,
    allowOrigins: options.allowOrigins ?? [],
    pageToken: crashToken,
    inspectorUrl: `${inspectorOrigin}/`,
  });
  inspectorDoor = new DevDoor({
    serves: 'inspector',
    port: (inspectorHttp.address() as AddressInfo).port,
    token: inspectorToken,
    appUrl: `${origin}/`,
  });

  // Reload: a saved source file of the app restarts the app process; one of a page rebuilds it.
  // Every folder holding a local file of a bundle is watched (after each build, afresh), so a
  // module shared from outside the entry's folder counts too.
  let timer: ReturnType<typeof setTimeout> | undefined;
  const changed = new Set<string>();
  const watcher = new FolderWatcher((file) => {
    changed.add(file);
    typeChecker?.changing();
    clearTimeout(timer);
    timer = setTimeout(() => {
      changes = changes
        .then(onChange)
        .catch((error: unknown) => log(`baton dev: could not reload: ${String(error)}`))
        // Rebuilt, unless a change came meanwhile: its own round ends with the check.
        .then(() => {
          if (changed.size === 0) typeChecker?.check();
        });
    }, 100);
  });
  const watchInputs = () =>
    watcher.watch([
      options.entry,
      ...(hasPage ? [pageEntry] : []),
      ...supervisor.inputs,
      ...[...pageInputs.values()].flatMap((inputs) => [...inputs]),
    ]);
  // One round of changes at a time: a save during a reload waits for it.
  let changes = Promise.resolve();
  const onChange = async () => {
    const files = [...changed];
    changed.clear();
    if (files.length === 0) return;
    const touches = (inputs: ReadonlySet<string>) => files.some((file) => inputs.has(file));
    for (const [path, page] of pages) {
      const entry = path === '/page.js' ? pageEntry : inspectorEntry;
      if (!('inputs' in page) || touches(page.inputs)) await build(path, entry);
    }
    // After a failed build its inputs are unknown: any change may be the fix.
    const cause = files.find((file) => supervisor.inputs.has(file));
    if (cause !== undefined || supervisor.buildFailed) {
      await supervisor.reload(`${shortPath(cause ?? files[0]!)} changed`);
    }
    watchInputs();
  };
  watchInputs();
  typeChecker?.check();

  const dataLine =
    options.backend === 'local-aws'
      ? 'DynamoDB Local + ElasticMQ (in memory: state lasts until baton dev stops)'
      : options.dataDir === undefined
        ? 'in memory (--in-memory): state ends with this process'
        : `${shortPath(options.dataDir)} (embedded backend; state survives restarts)`;
  log(
    [
      `baton dev: ready at ${origin}/`,
      `  app        ${origin}/${hasPage ? '' : '  (no web/page.tsx: a landing page)'}`,
      `  inspector  ${inspectorOrigin}/`,
      `  websocket  ${webSocketUrl(origin)}`,
      `  ingress    POST ${origin}/send, POST ${origin}/ask, GET ${origin}/outcome?to=<type/key>&idempotencyKey=<key>`,
      `  workflows  POST ${origin}/workflows/<name>/start, GET ${origin}/workflows/<name>/<id>`,
      `  data       ${dataLine}`,
      `  types      ${'tsc' in types ? `checked with ${shortPath(types.tsconfig)} after each change` : `not checked: ${types.unchecked}`}`,
      ...(options.allowOrigins?.length
        ? [`  trusts     pages on ${options.allowOrigins.join(', ')} (--allow-origin)`]
        : []),
      `Watching ${watchedFolders(appDir, watcher.folders, shortPath)} for changes. Ctrl-C stops.`,
    ].join('\n'),
  );

  let closing: Promise<void> | undefined;
  return {
    origin,
    inspectorOrigin,
    appPid: () => supervisor.pid,
    close() {
      closing ??= (async () => {
        watcher.close();
        clearTimeout(timer);
        typeChecker?.close();
        for (const socket of upgraded) socket.destroy();
        for (const server of [http, inspectorHttp]) {
          server.closeAllConnections();
          await new Promise<void>((done) => server.close(() => done()));
        }
        await supervisor.close();
        await stopEmulators();
      })();
      return closing;
    },
  };
}

/** A path relative to the working directory when it is inside it, else absolute. */
function shortPath(path: string): string {
  const relativePath = relative(process.cwd(), path);
  return relativePath.startsWith('..') ? path : relativePath || '.';
}
