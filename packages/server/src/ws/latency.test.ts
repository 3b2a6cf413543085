import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer } from './fixtures/startTestServer.ts';

let t: Awaited<ReturnType<typeof startTestServer>> | undefined;
afterEach(() => t?.close());

const SAMPLES = 200;

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function summary(label: string, samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const ms = (n: number) => `${n.toFixed(2)} ms`;
  return `${label}: median ${ms(percentile(sorted, 50))}, p99 ${ms(percentile(sorted, 99))} (n=${sorted.length})`;
}

/** A send on connection B, then the result frame on connection A, over loopback. */
async function measure(batchMs: number): Promise<string[]> {
  t = await startTestServer({ engine: { batchMs }, maxFramesPerSecond: 1_000_000 });
  const a = await t.open({ autoAck: true });
  const b = await t.open();
  a.send({ v: 1, type: 'subscribe', id: 's', query: 'totalBalance', args: { accounts: ['lat'] } });
  await a.push('s');
  let committedAt = 0;
  const unsubscribe = t.app.backend.feed.subscribe((record) => {
    if (record.id === 'account/lat') committedAt = performance.now();
  });
  const sendToResult: number[] = [];
  const commitToResult: number[] = [];
  for (let i = 1; i <= SAMPLES; i++) {
    const start = performance.now();
    b.send({
      v: 1,
      type: 'send',
      requestId: `r${i}`,
      to: 'account/lat',
      name: 'deposit',
      payload: { amount: 1 },
      idempotencyKey: `lat-${batchMs}-${i}`,
    });
    const push = await a.push('s');
    const end = performance.now();
    expect(a.values.get('s')).toMatchObject({ total: i });
    expect(push.version).toBe(i + 1);
    sendToResult.push(end - start);
    commitToResult.push(end - committedAt);
  }
  unsubscribe();
  await t.close();
  t = undefined;
  return [
    summary(`send on B → result on A (batchMs ${batchMs})`, sendToResult),
    summary(`commit → result on A (batchMs ${batchMs})`, commitToResult),
  ];
}

describe('latency over loopback', () => {
  it('prints the commit-to-client latency (median and p99 of 200 samples)', async () => {
    const lines = [...(await measure(10)), ...(await measure(0))];
    console.log(`[latency] ${lines.join('\n[latency] ')}`);
  });
});
