import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { EMULATOR_REQUIREMENTS, EmulatorError, EmulatorErrorCode } from '../EmulatorError.ts';
import { OutputTail } from './OutputTail.ts';

export interface MavenDependency {
  readonly groupId: string;
  readonly artifactId: string;
  readonly version: string;
  /** Maven's packaging type: `jar` (default), `so`, `dylib`, `dll`. */
  readonly type?: string;
}

/** One emulator's files, resolved by Maven into `<cacheDir>/<name>/lib`. */
export interface ArtifactSet {
  /** The folder in the cache; carries the version, so a new version resolves afresh. */
  readonly name: string;
  /** For messages: `DynamoDB Local 2.6.1`. */
  readonly title: string;
  readonly dependencies: readonly MavenDependency[];
  /** A file in `lib/` whose presence means the set is complete. */
  readonly mainJar: string;
  /** Runs in the staging folder after Maven and before the folder is published. */
  readonly prepare?: (dir: string) => Promise<void>;
}

export interface ResolveOptions {
  readonly cacheDir: string;
  readonly env: NodeJS.ProcessEnv;
  readonly log: (message: string) => void;
}

/** Pinned, so that a cold cache resolves the same plugin everywhere. */
const DEPENDENCY_PLUGIN = 'org.apache.maven.plugins:maven-dependency-plugin:3.8.1';

/** One Maven at a time in this process: parallel runs would race on `~/.m2`. */
let mavenQueue: Promise<unknown> = Promise.resolve();

/**
 * Returns `<cacheDir>/<set.name>`, with the jars in `lib/`. A complete folder is used as it is,
 * without Maven (so later runs work offline); otherwise Maven's `dependency:copy-dependencies`
 * fills a staging folder that is renamed into place only once complete.
 */
export async function resolveArtifacts(set: ArtifactSet, options: ResolveOptions): Promise<string> {
  const dir = join(options.cacheDir, set.name);
  if (isComplete(dir, set)) return dir;
  const run = mavenQueue.then(() => (isComplete(dir, set) ? dir : fetchInto(dir, set, options)));
  mavenQueue = run.catch(() => undefined);
  return run;
}

function isComplete(dir: string, set: ArtifactSet): boolean {
  return existsSync(join(dir, 'lib', set.mainJar));
}

async function fetchInto(dir: string, set: ArtifactSet, options: ResolveOptions): Promise<string> {
  const staging = `${dir}.staging-${process.pid}-${randomBytes(4).toString('hex')}`;
  await mkdir(staging, { recursive: true });
  try {
    const pom = join(staging, 'pom.xml');
    await writeFile(pom, pomXml(set));
    options.log(
      `Resolving ${set.title} with Maven into ${dir} (first run only; later runs are offline)…`,
    );
    const started = Date.now();
    await runMaven(
      [
        '-B',
        '-q',
        '-Dstyle.color=never',
        '-f',
        pom,
        `${DEPENDENCY_PLUGIN}:copy-dependencies`,
        `-DoutputDirectory=${join(staging, 'lib')}`,
      ],
      staging,
      set,
      options.env,
    );
    await set.prepare?.(staging);
    if (!isComplete(staging, set)) {
      throw new EmulatorError(
        EmulatorErrorCode.RESOLVE_FAILED,
        `Maven finished but ${set.mainJar} is missing from ${join(staging, 'lib')}.`,
        { details: { emulator: set.title } },
      );
    }
    if (!isComplete(dir, set)) {
      await rm(dir, { recursive: true, force: true });
      try {
        await rename(staging, dir);
      } catch (error) {
        // Another process published the same set first; theirs is as good as ours.
        if (!isComplete(dir, set)) throw error;
      }
    }
    options.log(`Resolved ${set.title} in ${Math.round((Date.now() - started) / 100) / 10} s.`);
    return dir;
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

function runMaven(
  args: readonly string[],
  cwd: string,
  set: ArtifactSet,
  env: NodeJS.ProcessEnv,
): Promise<void> {
  const windows = process.platform === 'win32';
  return new Promise((resolve, reject) => {
    const tail = new OutputTail();
    const child = spawn(windows ? 'mvn.cmd' : 'mvn', args, {
      cwd,
      env,
      shell: windows,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.on('data', (chunk: Buffer) => tail.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => tail.push(chunk));
    child.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'ENOENT'
          ? new EmulatorError(
              EmulatorErrorCode.MAVEN_NOT_FOUND,
              `${set.title} is not in the cache yet and there is no \`mvn\` on PATH to fetch it. ${EMULATOR_REQUIREMENTS}.`,
              { details: { emulator: set.title }, cause: error },
            )
          : error,
      );
    });
    child.once('close', (code, signal) => {
      if (code === 0) {
        resolve();
        return;
      }
      reject(
        new EmulatorError(
          EmulatorErrorCode.RESOLVE_FAILED,
          `Maven could not resolve ${set.title} (exit ${code ?? signal}); it needs Maven Central on the first run.\n${tail}`,
          { details: { emulator: set.title, args, output: tail.toString() } },
        ),
      );
    });
  });
}

function pomXml(set: ArtifactSet): string {
  const dependencies = set.dependencies
    .map(
      (d) =>
        `    <dependency><groupId>${d.groupId}</groupId><artifactId>${d.artifactId}</artifactId>` +
        `<version>${d.version}</version>${d.type ? `<type>${d.type}</type>` : ''}</dependency>`,
    )
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>
<!-- Written by @baton/cli to resolve ${set.title}; safe to delete with its folder. -->
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>dev.baton.emulators</groupId>
  <artifactId>${set.name.replace(/[^A-Za-z0-9_.-]/g, '-')}</artifactId>
  <version>0</version>
  <packaging>pom</packaging>
  <dependencies>
${dependencies}
  </dependencies>
</project>
`;
}
