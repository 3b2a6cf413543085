/**
 * `pnpm bench:profile`: where the Node CPU of a ping-pong hop goes (row 3a), Baton's side
 * against the hand-written pipeline's. Both sides run on DynamoDB Local + ElasticMQ, rounds
 * alternating, each round under V8's sampling profiler; every sample's self time is put in a
 * category by the code it was in (Baton's packages, the AWS SDK, zod, Node's own modules,
 * garbage collection, promise jobs, other native code) and divided by the hops. A row's
 * difference is what the engine adds per hop in that category: its own code, and what its
 * calls cost the SDK and Node (larger items, more attributes, more promises).
 *
 * Runs through tsx like `pnpm bench`: Baton's functions carry tsx's `__name()` wrappers, which a
 * bundled deployment does not, so Baton's own share is, if anything, overstated. The sampling
 * itself slows both sides alike; compare the two columns, not the totals with row 3a's.
 */
import { Session } from 'node:inspector/promises';
import { engineRound, handRound } from './aws/ping-pong.ts';
import { benchResources, openTarget } from './aws/target.ts';

const ROUND_TRIPS = 20;
const HOPS = 2 * ROUND_TRIPS + 1;
const WARMUP = 3;
const ROUNDS = Number(process.env.PROFILE_ROUNDS ?? 20);
/** Microseconds between samples: fine enough for a hop of about 10 ms. */
const SAMPLING_US = 100;

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string };
}
interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** Microseconds of self time by category, and by Baton function, over a side's rounds. */
class Tally {
  readonly byCategory = new Map<string, number>();
  readonly byBatonFunction = new Map<string, number>();
  hops = 0;

  add(profile: Profile): void {
    const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
    profile.samples.forEach((id, i) => {
      const frame = nodes.get(id)?.callFrame;
      const micros = profile.timeDeltas[i] ?? 0;
      if (!frame) return;
      const category = categoryOf(frame);
      if (category === undefined) return;
      bump(this.byCategory, category, micros);
      if (category === BATON) bump(this.byBatonFunction, functionOf(frame), micros);
    });
  }

  perHop(map: Map<string, number>, key: string): number {
    return (map.get(key) ?? 0) / 1000 / this.hops;
  }
}

const BATON = "Baton's packages";

/**
 * The category of a sample's frame; undefined for idle time and for the profiler's own work
 * (`dispatch`: the session handing over a profile).
 */
function categoryOf(frame: ProfileNode['callFrame']): string | undefined {
  const { url, functionName } = frame;
  if (url === '') {
    if (functionName === '(idle)' || functionName === 'dispatch') return undefined;
    if (functionName === '(garbage collector)') return 'garbage collection';
    if (functionName === 'runMicrotasks') return 'promise jobs';
    // A write to a loopback socket wakes the emulator, which may take the core Node was on.
    if (functionName === 'writev') return 'socket writes (and waits for a core)';
    return 'other native (JSON, crypto, V8)';
  }
  if (url.includes('/node_modules/')) {
    if (url.includes('/@aws-sdk/') || url.includes('/@smithy/')) return 'AWS SDK';
    if (url.includes('/zod/')) return 'zod';
    return 'other packages';
  }
  if (url.includes('/packages/')) return BATON;
  if (url.startsWith('node:')) return 'Node (HTTP, streams, crypto)';
  return 'the benchmark';
}

function functionOf(frame: ProfileNode['callFrame']): string {
  const file = frame.url.split('/packages/')[1] ?? frame.url;
  return `${frame.functionName || '(anonymous)'} (${file})`;
}

function bump(map: Map<string, number>, key: string, value: number): void {
  map.set(key, (map.get(key) ?? 0) + value);
}

async function main(): Promise<void> {
  const target = await openTarget({ log: (line) => console.log(line) });
  try {
    const setup = await benchResources(target, 'profile');
    const hand = { clients: target.clients(), tally: new Tally() };
    const baton = { clients: target.clients(), tally: new Tally() };
    const session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: SAMPLING_US });
    console.log(
      `profiling ping-pong: ${WARMUP} warm-up rounds, then ${ROUNDS} of ${HOPS} hops per side, alternating`,
    );
    for (let round = 0; round < WARMUP + ROUNDS; round++) {
      for (const [side, run] of [
        [hand, () => handRound(hand.clients, setup, ROUND_TRIPS)],
        [baton, () => engineRound(baton.clients, setup, ROUND_TRIPS)],
      ] as const) {
        if (round < WARMUP) {
          await run();
          continue;
        }
        await session.post('Profiler.start');
        const sample = await run();
        const { profile } = await session.post('Profiler.stop');
        side.tally.add(profile as unknown as Profile);
        side.tally.hops += sample.ops;
      }
    }
    session.disconnect();
    report(hand.tally, baton.tally);
  } finally {
    await target.close();
  }
}

function report(hand: Tally, baton: Tally): void {
  const categories = [...new Set([...hand.byCategory.keys(), ...baton.byCategory.keys()])];
  const rows = categories
    .map((category) => {
      const h = hand.perHop(hand.byCategory, category);
      const b = baton.perHop(baton.byCategory, category);
      return { category, h, b };
    })
    .sort((x, y) => y.b - y.h - (x.b - x.h));
  const total = (side: 'h' | 'b') => rows.reduce((sum, row) => sum + row[side], 0);
  const line = (name: string, h: number, b: number) =>
    `  ${name.padEnd(36)} ${h.toFixed(3).padStart(9)} ${b.toFixed(3).padStart(9)} ${(b - h >= 0 ? '+' : '') + (b - h).toFixed(3)}`;
  console.log(`\nNode CPU per hop, ms (samples' self time, idle left out)`);
  console.log(`  ${'category'.padEnd(36)} ${'hand'.padStart(9)} ${'Baton'.padStart(9)} difference`);
  for (const { category, h, b } of rows) console.log(line(category, h, b));
  console.log(line('total', total('h'), total('b')));
  const own = [...baton.byBatonFunction].sort((x, y) => y[1] - x[1]).slice(0, 15);
  console.log(`\nBaton's own functions, self time per hop (ms), the 15 largest:`);
  for (const [name] of own) {
    console.log(`  ${baton.perHop(baton.byBatonFunction, name).toFixed(3).padStart(7)}  ${name}`);
  }
}

await main();
