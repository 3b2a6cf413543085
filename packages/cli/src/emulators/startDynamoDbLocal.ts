import { copyFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { defaultEmulatorCacheDir } from './defaultEmulatorCacheDir.ts';
import { EmulatorError, EmulatorErrorCode } from './EmulatorError.ts';
import {
  EMULATOR_VERSIONS,
  type EmulatorOptions,
  type RunningEmulator,
} from './EmulatorOptions.ts';
import { findJava } from './internal/findJava.ts';
import { launchEmulator } from './internal/launchEmulator.ts';
import { writeLoopbackRunner } from './internal/loopbackRunner.ts';
import { killOrphans } from './internal/processRegistry.ts';
import { type ArtifactSet, resolveArtifacts } from './internal/resolveArtifacts.ts';

export interface DynamoDbLocalOptions extends EmulatorOptions {
  /**
   * A fixed port on 127.0.0.1.
   * @default a free port
   */
  readonly port?: number;
  /**
   * The `com.amazonaws:DynamoDBLocal` version.
   * @default EMULATOR_VERSIONS.dynamodbLocal
   */
  readonly version?: string;
}

/**
 * Starts DynamoDB Local in memory (`-inMemory -sharedDb -disableTelemetry`) on 127.0.0.1 only
 * and resolves once it answers. One shared database for every credential and region, so a
 * test's clients all see the same tables. (DynamoDB Local has no flag for its address and
 * listens on every interface; a small runner, compiled by Java from source when it starts,
 * binds it to loopback.) The first call resolves the jars and the sqlite4java native library with Maven
 * into the cache; later calls start offline.
 *
 * @example
 * import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
 *
 * const dynamodb = await startDynamoDbLocal();
 * const client = new DynamoDBClient({ endpoint: dynamodb.endpoint, region: 'us-east-1' });
 * await client.send(new ListTablesCommand({}));
 * await dynamodb.stop();
 */
export async function startDynamoDbLocal(
  options: DynamoDbLocalOptions = {},
): Promise<RunningEmulator> {
  const env = options.env ?? process.env;
  const cacheDir = options.cacheDir ?? defaultEmulatorCacheDir(env);
  const log = options.log ?? (() => undefined);
  const java = await findJava(env);
  await killOrphans(cacheDir);
  const set = dynamoDbLocalArtifacts(options.version ?? EMULATOR_VERSIONS.dynamodbLocal);
  const dir = await resolveArtifacts(set, { cacheDir, env, log });
  const runner = await writeLoopbackRunner(dir);
  const running = await launchEmulator({
    name: 'dynamodb-local',
    title: set.title,
    java: java.command,
    cacheDir,
    cwd: dir,
    env,
    port: options.port,
    startTimeoutMs: options.startTimeoutMs ?? 60_000,
    log,
    // Any HTTP answer means up; this one is a 400 (no X-Amz-Target).
    probe: { method: 'POST', path: '/', body: '{}' },
    argsFor: async (port) => ({
      args: [
        `-Djava.library.path=${join(dir, 'native')}`,
        ...(options.javaOptions ?? []),
        '-cp',
        join(dir, 'lib', '*'),
        runner,
        '127.0.0.1',
        '-inMemory',
        '-sharedDb',
        '-disableTelemetry',
        '-port',
        String(port),
      ],
    }),
  });
  return { ...running, endpoint: `http://127.0.0.1:${running.port}` };
}

/** sqlite4java's native library per `platform-arch`: its Maven artifact and packaging type. */
const NATIVE_LIBRARIES: Readonly<Record<string, { artifactId: string; type: string }>> = {
  'linux-x64': { artifactId: 'libsqlite4java-linux-amd64', type: 'so' },
  'linux-ia32': { artifactId: 'libsqlite4java-linux-i386', type: 'so' },
  'darwin-x64': { artifactId: 'libsqlite4java-osx', type: 'dylib' },
  'darwin-arm64': { artifactId: 'libsqlite4java-osx', type: 'dylib' },
  'win32-x64': { artifactId: 'sqlite4java-win32-x64', type: 'dll' },
};

/** The native library for this machine, and the file name sqlite4java loads it by. */
function nativeLibrary(): { artifactId: string; type: string; file: string } {
  const key = `${process.platform}-${process.arch}`;
  const native = NATIVE_LIBRARIES[key];
  if (native === undefined) {
    throw new EmulatorError(
      EmulatorErrorCode.UNSUPPORTED_PLATFORM,
      `DynamoDB Local needs sqlite4java's native library, which has no build for ${key}.`,
      { details: { platform: key } },
    );
  }
  return { ...native, file: `${native.artifactId}.${native.type}` };
}

function dynamoDbLocalArtifacts(version: string): ArtifactSet {
  const native = nativeLibrary();
  const sqlite = EMULATOR_VERSIONS.sqlite4java;
  return {
    name: `dynamodb-local-${version}-${native.artifactId}`,
    title: `DynamoDB Local ${version}`,
    mainJar: `DynamoDBLocal-${version}.jar`,
    dependencies: [
      { groupId: 'com.amazonaws', artifactId: 'DynamoDBLocal', version },
      {
        groupId: 'com.almworks.sqlite4java',
        artifactId: native.artifactId,
        version: sqlite,
        type: native.type,
      },
    ],
    // sqlite4java loads `<file>` from java.library.path; Maven names it with the version.
    prepare: async (dir) => {
      await mkdir(join(dir, 'native'), { recursive: true });
      await copyFile(
        join(dir, 'lib', `${native.artifactId}-${sqlite}.${native.type}`),
        join(dir, 'native', native.file),
      );
    },
  };
}
