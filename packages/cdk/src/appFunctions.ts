/**
 * The app's Lambda functions, one per part of `BATON_IAM`: each bundled from its entry beside
 * this module with the app, on a role of its own that writes only its own log group, and the
 * environment that tells it the app's resources and settings.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  allowedOriginsVariable,
  BATON_ENV,
  type BATON_IAM,
  DEFAULT_METRICS_NAMESPACE,
} from '@baton/aws';
import { Duration } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { LogLevel, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { lockFile } from './projectRoot.ts';
import { WEBSOCKET_AUTH_ENV } from './requireConnectAuth.ts';
import type { BatonAppSettings } from './validateProps.ts';

/** The functions of a Baton app, by the part of `BATON_IAM` each runs. */
export type BatonFunctionName = keyof typeof BATON_IAM;

/** Where the app is built from, and what every function's environment holds. */
export interface FunctionSources {
  /** The app's entry, resolved. */
  readonly entry: string;
  readonly projectRoot: string;
  readonly environment: Record<string, string>;
}

/** Every function, by the part it runs. */
export function createFunctions(
  scope: Construct,
  settings: BatonAppSettings,
  { entry, projectRoot, environment }: FunctionSources,
): Record<BatonFunctionName, NodejsFunction> {
  const entries = entriesDir();
  const make = (name: BatonFunctionName, timeout: Duration) => {
    const caps = settings.reservedConcurrency;
    const reserved =
      caps && (name === 'websocket' || name === 'ingress' || name === 'stream')
        ? caps[name]
        : undefined;
    const id = `${name[0]!.toUpperCase()}${name.slice(1)}`;
    const logGroup = new logs.LogGroup(scope, `${id}Logs`, { retention: settings.logRetention });
    // A role of its own that writes only its own log group (no AWS managed policy).
    const role = new iam.Role(scope, `${id}Role`, {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `The ${name} function of Baton app ${scope.node.path}`,
    });
    logGroup.grantWrite(role);
    return new NodejsFunction(scope, `${id}Function`, {
      entry: join(entries.dir, `${name}${entries.ext}`),
      role,
      logGroup,
      projectRoot,
      depsLockFilePath: lockFile(projectRoot),
      runtime: lambda.Runtime.NODEJS_24_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: 1024,
      timeout,
      environment,
      ...(reserved ? { reservedConcurrentExecutions: reserved } : {}),
      bundling: {
        format: OutputFormat.ESM,
        target: 'node24',
        minify: true,
        sourceMap: true,
        externalModules: ['@aws-sdk/*'],
        mainFields: ['module', 'main'],
        // CommonJS dependencies inside an ES module bundle still call require().
        banner:
          "import { createRequire as __batonRequire } from 'node:module'; const require = __batonRequire(import.meta.url);",
        esbuildArgs: { '--alias:baton-app': entry },
        // A synth prints what needs attention, not each bundle's size.
        logLevel: LogLevel.WARNING,
      },
    });
  };
  return {
    worker: make('worker', settings.workerTimeout),
    sweeper: make('sweeper', Duration.minutes(5)),
    relay: make('relay', Duration.seconds(30)),
    ingress: make('ingress', Duration.seconds(30)),
    websocket: make('websocket', Duration.seconds(29)),
    stream: make('stream', Duration.minutes(1)),
    connectionSweeper: make('connectionSweeper', Duration.minutes(5)),
  };
}

/**
 * The settings some functions read besides the resources: the sweeper's concurrency, the
 * WebSocket function's auth and limits, and the worker's turn metrics (`metricsService`, or off).
 */
export function addSettingsEnvironment(
  functions: Record<BatonFunctionName, NodejsFunction>,
  settings: BatonAppSettings,
  metricsService: string | undefined,
): void {
  functions.sweeper.addEnvironment(BATON_ENV.sweepConcurrency, String(settings.sweeperConcurrency));
  // What the WebSocket function checks at cold start against the app it bundles.
  functions.websocket.addEnvironment(WEBSOCKET_AUTH_ENV, settings.webSocketAuth);
  for (const [name, value] of settings.webSocketLimits) {
    functions.websocket.addEnvironment(name, String(value));
  }
  if (settings.allowedOrigins !== undefined) {
    functions.websocket.addEnvironment(
      BATON_ENV.allowedOrigins,
      allowedOriginsVariable(settings.allowedOrigins),
    );
  }
  // The worker's turn metrics (EMF log lines through Powertools), on unless turned off.
  if (metricsService === undefined) functions.worker.addEnvironment(BATON_ENV.metrics, 'off');
  else {
    functions.worker.addEnvironment('POWERTOOLS_METRICS_NAMESPACE', DEFAULT_METRICS_NAMESPACE);
    functions.worker.addEnvironment('POWERTOOLS_SERVICE_NAME', metricsService);
  }
}

/** Where the function entries are: beside this module, as sources or as built JavaScript. */
function entriesDir(): { dir: string; ext: string } {
  const here = fileURLToPath(import.meta.url);
  return { dir: join(dirname(here), 'entries'), ext: here.endsWith('.ts') ? '.ts' : '.js' };
}
