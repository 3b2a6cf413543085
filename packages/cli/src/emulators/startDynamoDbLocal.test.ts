import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultEmulatorCacheDir } from './defaultEmulatorCacheDir.ts';
import { EMULATOR_REQUIREMENTS, EmulatorErrorCode, isEmulatorError } from './EmulatorError.ts';
import { startDynamoDbLocal } from './startDynamoDbLocal.ts';

/** `java.home` of the `java` on PATH, to run Java with a PATH that has no Maven. */
function javaHome(): string {
  // Java prints its settings on stderr.
  const { stderr } = spawnSync('java', ['-XshowSettings:properties', '-version'], {
    encoding: 'utf8',
  });
  const home = /java\.home = (.+)/.exec(stderr)?.[1];
  if (home === undefined) throw new Error(`no java.home in: ${stderr}`);
  return home.trim();
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

const noTools = { PATH: join(tmpdir(), 'baton-no-such-dir') };
const emptyCaches: string[] = [];
afterAll(() => {
  for (const dir of emptyCaches) rmSync(dir, { recursive: true, force: true });
});

describe('startDynamoDbLocal', () => {
  it('says that Java 17+ and Maven are needed when there is no java', async () => {
    const error = await failure(startDynamoDbLocal({ env: noTools }));
    expect(isEmulatorError(error)).toBe(true);
    expect(error).toMatchObject({ code: 'UNAVAILABLE', reason: EmulatorErrorCode.JAVA_NOT_FOUND });
    expect((error as Error).message).toContain(EMULATOR_REQUIREMENTS);
  });

  it('says that Maven is needed when the cache is cold and there is no mvn', async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), 'baton-emulators-'));
    emptyCaches.push(cacheDir);
    const error = await failure(
      startDynamoDbLocal({ cacheDir, env: { ...noTools, JAVA_HOME: javaHome() } }),
    );
    expect(error).toMatchObject({ code: 'UNAVAILABLE', reason: EmulatorErrorCode.MAVEN_NOT_FOUND });
    expect((error as Error).message).toContain(EMULATOR_REQUIREMENTS);
  });

  it('starts from a warm cache without Maven, offline', async () => {
    const cacheDir = defaultEmulatorCacheDir();
    await (await startDynamoDbLocal({ cacheDir })).stop(); // warms the cache if needed
    const dynamodb = await startDynamoDbLocal({
      cacheDir,
      env: { ...noTools, JAVA_HOME: javaHome() },
    });
    try {
      const res = await fetch(dynamodb.endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-amz-json-1.0',
          'x-amz-target': 'DynamoDB_20120810.ListTables',
          authorization:
            'AWS4-HMAC-SHA256 Credential=local/20240101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0',
        },
        body: '{}',
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toHaveProperty('TableNames');
    } finally {
      await dynamodb.stop();
    }
  }, 120_000);

  it('reports the JVM output when the emulator exits before it answers', async () => {
    const error = await failure(startDynamoDbLocal({ javaOptions: ['-Xmx1k'] }));
    expect(error).toMatchObject({ code: 'UNAVAILABLE', reason: EmulatorErrorCode.START_FAILED });
    expect((error as Error).message).toMatch(/heap/i);
  });

  it('gives up after the start timeout and leaves no process behind', async () => {
    const error = await failure(startDynamoDbLocal({ startTimeoutMs: 1 }));
    expect(error).toMatchObject({ code: 'UNAVAILABLE', reason: EmulatorErrorCode.START_TIMEOUT });
    const port = (error as { details: { port: number } }).details.port;
    const ps = execFileSync('ps', ['-eww', '-o', 'args='], { encoding: 'utf8' });
    expect(ps.split('\n').filter((line) => line.includes(`-port ${port}`))).toEqual([]);
  });
});
