/**
 * 7. The worker Lambda as it ships: its entry (the bank's actors behind `workerHandler`) bundled
 * with esbuild the way a deployment bundles it — minified, ESM, the AWS SDK left to the Lambda
 * runtime — then loaded in fresh Node processes.
 *
 * - size: the minified bundle against DESIGN's 250 KB budget, with the share of each part
 *   (Baton's packages, zod, the app);
 * - load: importing the bundle against importing the SDK clients it leaves external, in
 *   alternating fresh processes (what Baton and the app add to a cold start).
 */
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build, type Metafile } from 'esbuild';
import { interleave, median, quartiles } from './measure.ts';
import type { Row } from './report.ts';

const root = new URL('../', import.meta.url).pathname;
/** Inside @baton/aws, so the bundle's external SDK imports resolve from its dependencies. */
const outDir = join(root, 'packages/aws/node_modules/.cache/baton-bench');
const BUDGET_BYTES = 250 * 1024;

const entry = `
import { createAwsClients, DynamoStore, SqsQueue } from '@baton/aws';
import { workerHandler } from '@baton/aws/lambda';
import { Account } from '${join(root, 'examples/bank/src/bank.ts')}';

const { dynamodb, sqs } = createAwsClients();
const store = new DynamoStore({ client: dynamodb, tableName: 'baton' });
const queue = new SqsQueue({ client: sqs, queueUrl: 'http://127.0.0.1:9324/000000000000/inbox.fifo' });
export const handler = workerHandler({ actors: [Account], store, queue });
`;

const sdkOnly = `
import '@aws-sdk/client-dynamodb';
import '@aws-sdk/client-sqs';
import '@aws-sdk/util-dynamodb';
`;

export interface WorkerBundleOptions {
  /** Fresh processes per side. */
  readonly rounds: number;
  readonly log: (line: string) => void;
}

export async function workerBundle(options: WorkerBundleOptions): Promise<Row[]> {
  mkdirSync(outDir, { recursive: true });
  const bundlePath = join(outDir, 'worker.mjs');
  const sdkPath = join(outDir, 'sdk.mjs');
  writeFileSync(sdkPath, sdkOnly);
  const result = await build({
    stdin: { contents: entry, resolveDir: root, loader: 'ts', sourcefile: 'worker-entry.ts' },
    bundle: true,
    minify: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: ['@aws-sdk/*'],
    metafile: true,
    outfile: bundlePath,
    logLevel: 'warning',
  });
  const output = Object.values(result.metafile.outputs)[0]!;
  const shares = shareOf(result.metafile);
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
  options.log(
    `  minified ${kb(output.bytes)}: ${Object.entries(shares)
      .map(([part, bytes]) => `${part} ${kb(bytes)}`)
      .join(', ')}`,
  );

  const load = await interleave({
    baseline: () => importTime(sdkPath),
    candidate: () => importTime(bundlePath),
    rounds: options.rounds,
    warmup: 1,
  });
  const ms = (ns: number) => `${(ns / 1e6).toFixed(0)} ms`;
  return [
    {
      bench: '7a. worker bundle, minified (SDK external)',
      baseline: `budget ${kb(BUDGET_BYTES)}`,
      candidate: kb(output.bytes),
      ratio: output.bytes / BUDGET_BYTES,
      spread: [output.bytes / BUDGET_BYTES, output.bytes / BUDGET_BYTES],
      budget: { kind: 'max', value: 1 },
    },
    {
      bench: '7b. worker module load vs the SDK clients alone',
      baseline: ms(median(load.baseline)),
      candidate: ms(median(load.candidate)),
      ratio: median(load.paired),
      spread: quartiles(load.paired),
    },
  ];
}

/** Bytes of the output by where they came from: Baton's packages, zod, or the rest. */
function shareOf(metafile: Metafile): Record<string, number> {
  const shares: Record<string, number> = { baton: 0, zod: 0, app: 0 };
  const output = Object.values(metafile.outputs)[0]!;
  for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
    const part = input.includes('packages/') ? 'baton' : input.includes('zod') ? 'zod' : 'app';
    shares[part] = (shares[part] ?? 0) + bytesInOutput;
  }
  return shares;
}

/** How long a fresh Node process takes to import `path`, measured inside it. */
async function importTime(path: string): Promise<{ ns: number; ops: number }> {
  const script =
    'const t = process.hrtime.bigint(); await import(process.argv[1]);' +
    'console.log(String(process.hrtime.bigint() - t));';
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--no-warnings', '--input-type=module', '-e', script, path],
    { cwd: outDir },
  );
  return { ns: Number(stdout.trim()), ops: 1 };
}
