/**
 * `pnpm bench:instructions`: the machine instructions one embedded turn costs — row 6's workload
 * (20,000 ingress messages over 1,000 actors, one `Worker`, batch 10), counted by valgrind
 * instead of timed. On a shared host the time of a turn moves by a third between two runs of
 * the same code; its instruction count moves by 2–3%, so two versions of the engine can be
 * compared on any host (a few runs each), and the count does not depend on the host's speed.
 *
 * The workload is bundled (esbuild, as a deployment bundles it) and run under
 * `valgrind --tool=cachegrind` with V8 on one thread, once with one round and once with
 * {@link ROUNDS}: the difference, over the turns of the extra rounds, leaves out Node's start,
 * the module load and the first round, where V8 compiles the turn path. Needs valgrind
 * (Debian: `apt-get install valgrind`); a run takes three to five minutes, valgrind running Node
 * some fifty times slower. Not part of `pnpm bench`, whose figures are times.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { bundleWorkload } from './embeddedBundle.ts';

const MESSAGES = 20_000;
const ACTORS = 1_000;
/** Rounds of the long run: the first is left out by the difference with a run of one. */
const ROUNDS = 4;

const workload = `
import { embeddedRound } from './bench/embedded-round.ts';
const rounds = Number(process.env.BATON_ROUNDS);
for (let i = 0; i < rounds; i++) await embeddedRound(${MESSAGES}, ${ACTORS});
`;

async function main(): Promise<void> {
  await ensureValgrind();
  const bundle = await bundleWorkload(workload, 'embedded-turns.mjs');
  console.log(
    `counting instructions: ${MESSAGES.toLocaleString('en-US')} messages over ` +
      `${ACTORS.toLocaleString('en-US')} actors, 1 round, then ${ROUNDS} (valgrind, a few minutes)`,
  );
  const one = await instructions(bundle, 1);
  const many = await instructions(bundle, ROUNDS);
  const perTurn = (many - one) / ((ROUNDS - 1) * MESSAGES);
  console.log(
    `  1 round: ${one.toLocaleString('en-US')} instructions; ${ROUNDS} rounds: ` +
      `${many.toLocaleString('en-US')}`,
  );
  console.log(`instructions per embedded turn: ${Math.round(perTurn).toLocaleString('en-US')}`);
}

/** The instructions valgrind counted for the whole process running `rounds` rounds. */
async function instructions(bundle: string, rounds: number): Promise<number> {
  const { stderr } = await promisify(execFile)(
    'valgrind',
    [
      '--tool=cachegrind',
      '--cache-sim=no',
      '--cachegrind-out-file=/dev/null',
      process.execPath,
      // One thread: V8's compilers and collector otherwise work beside it, in varying amounts.
      '--single-threaded',
      bundle,
    ],
    { env: { ...process.env, BATON_ROUNDS: String(rounds) }, maxBuffer: 64 * 1024 * 1024 },
  );
  const refs = /I\s+refs:\s+([\d,]+)/.exec(stderr);
  if (!refs) throw new Error(`valgrind printed no instruction count:\n${stderr.slice(-2000)}`);
  return Number(refs[1]!.replaceAll(',', ''));
}

async function ensureValgrind(): Promise<void> {
  try {
    await promisify(execFile)('valgrind', ['--version']);
  } catch {
    console.error(
      'bench:instructions needs valgrind on PATH (Debian/Ubuntu: apt-get install valgrind; ' +
        'macOS has none: run it on Linux)',
    );
    process.exit(1);
  }
}

await main();
