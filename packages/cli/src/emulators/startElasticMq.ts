import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { defaultEmulatorCacheDir } from './defaultEmulatorCacheDir.ts';
import {
  EMULATOR_VERSIONS,
  type EmulatorOptions,
  type RunningEmulator,
} from './EmulatorOptions.ts';
import { findJava } from './internal/findJava.ts';
import { launchEmulator } from './internal/launchEmulator.ts';
import { killOrphans } from './internal/processRegistry.ts';
import { type ArtifactSet, resolveArtifacts } from './internal/resolveArtifacts.ts';

export interface ElasticMqOptions extends EmulatorOptions {
  /**
   * A fixed port on 127.0.0.1.
   * @default a free port
   */
  readonly port?: number;
  /**
   * The `org.elasticmq:elasticmq-server_2.13` version.
   * @default EMULATOR_VERSIONS.elasticmq
   */
  readonly version?: string;
}

/**
 * Starts ElasticMQ, an SQS-compatible server (standard and FIFO queues, dead-letter queues,
 * the JSON and query protocols), in memory on a loopback port, with SQS's strict limits and
 * queue ARNs in `us-east-1` / account `000000000000`. The first call resolves it with Maven into
 * the cache; later calls start offline.
 *
 * @example
 * import { ListQueuesCommand, SQSClient } from '@aws-sdk/client-sqs';
 *
 * const sqs = await startElasticMq();
 * const client = new SQSClient({ endpoint: sqs.endpoint, region: 'us-east-1' });
 * await client.send(new ListQueuesCommand({}));
 * await sqs.stop();
 */
export async function startElasticMq(options: ElasticMqOptions = {}): Promise<RunningEmulator> {
  const env = options.env ?? process.env;
  const cacheDir = options.cacheDir ?? defaultEmulatorCacheDir(env);
  const log = options.log ?? (() => undefined);
  const java = await findJava(env);
  await killOrphans(cacheDir);
  const set = elasticMqArtifacts(options.version ?? EMULATOR_VERSIONS.elasticmq);
  const dir = await resolveArtifacts(set, { cacheDir, env, log });
  const runDir = join(cacheDir, 'run');
  await mkdir(runDir, { recursive: true });
  const running = await launchEmulator({
    name: 'elasticmq',
    title: set.title,
    java: java.command,
    cacheDir,
    cwd: dir,
    env,
    port: options.port,
    startTimeoutMs: options.startTimeoutMs ?? 60_000,
    log,
    probe: { method: 'GET', path: '/?Action=ListQueues' },
    argsFor: async (port) => {
      const config = join(runDir, `elasticmq-${process.pid}-${port}.conf`);
      await writeFile(config, elasticMqConfig(port));
      return {
        args: [
          `-Dconfig.file=${config}`,
          ...(options.javaOptions ?? []),
          '-cp',
          join(dir, 'lib', '*'),
          'org.elasticmq.server.Main',
        ],
        cleanup: () => rm(config, { force: true }),
      };
    },
  });
  return { ...running, endpoint: `http://127.0.0.1:${running.port}` };
}

/** HOCON over ElasticMQ's defaults: SQS on the port, the stats/UI server off. */
function elasticMqConfig(port: number): string {
  return `include classpath("application.conf")

node-address {
  protocol = http
  host = "127.0.0.1"
  port = ${port}
  context-path = ""
}

rest-sqs {
  enabled = true
  bind-port = ${port}
  bind-hostname = "127.0.0.1"
  sqs-limits = strict
}

rest-stats {
  enabled = false
}

aws {
  region = us-east-1
  accountId = "000000000000"
}
`;
}

function elasticMqArtifacts(version: string): ArtifactSet {
  return {
    name: `elasticmq-${version}`,
    title: `ElasticMQ ${version}`,
    mainJar: `elasticmq-server_2.13-${version}.jar`,
    dependencies: [{ groupId: 'org.elasticmq', artifactId: 'elasticmq-server_2.13', version }],
  };
}
