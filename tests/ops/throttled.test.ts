/**
 * The read commands while the table throttles, on DynamoDB Local behind a proxy that answers a
 * share of the calls with ProvisionedThroughputExceededException: `status` given the table alone
 * (no `--outbox-shards`: some 300 queries, one per index key and read), `backlog` and
 * `dead-letters list` ride out a quarter of their calls throttled, as an operator runs them in
 * an incident; and when the table throttles past the retries, the error says so and what to do.
 */
import { runOps } from '@baton/cli/ops';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createOpsDeployment, flagsOf, type OpsDeployment } from './fixtures/opsDeployment.ts';
import { startThrottleProxy, type ThrottleProxy } from './fixtures/throttleProxy.ts';

describe('the read commands while the table throttles', () => {
  let deployment: OpsDeployment;
  let proxy: ThrottleProxy;

  beforeEach(async () => {
    deployment = await createOpsDeployment('throttled');
    proxy = await startThrottleProxy(deployment.options['dynamodb-endpoint']!, 0);
  });
  afterEach(() => proxy.close());

  /** `baton <argv> --json` on the deployment, its DynamoDB through the proxy. */
  async function baton(argv: readonly string[], env: Record<string, string> = {}) {
    const out: string[] = [];
    const err: string[] = [];
    const options = { ...deployment.options, 'dynamodb-endpoint': proxy.endpoint };
    const code = await runOps([...argv, ...flagsOf(options), '--json'], {
      out: (line) => out.push(line),
      err: (line) => err.push(line),
      env,
      now: () => Date.now(),
    });
    return { code, out: out.join('\n'), err: err.join('\n') };
  }

  it('status, backlog and dead-letters list answer with a quarter of the calls throttled', async () => {
    const commands = [['status'], ['backlog'], ['dead-letters', 'list']];
    const calm = [];
    for (const argv of commands) calm.push(JSON.parse((await baton(argv)).out));

    proxy.share = 0.25;
    for (const [i, argv] of commands.entries()) {
      const run = await baton(argv);
      expect({ argv, code: run.code, err: run.err }).toEqual({ argv, code: 0, err: '' });
      expect(counts(JSON.parse(run.out))).toEqual(counts(calm[i]));
    }
    // Some 300 queries a status or backlog (100 index keys, three reads), a quarter refused.
    expect(proxy.throttled.Query).toBeGreaterThan(100);
  }, 120_000);

  it('says the table is throttling, and what to do, when it throttles past the retries', async () => {
    proxy.share = 1;
    // Two attempts, so that the test does not wait out ten.
    const run = await baton(['status'], { AWS_MAX_ATTEMPTS: '2' });
    expect(run.code).toBe(1);
    const [line, hint] = run.err.split('\n');
    expect(line).toMatch(/^baton status: DynamoDB .*ProvisionedThroughputExceededException/);
    expect(hint).toBe(
      "  the table is throttling: DynamoDB refused a call of this command 2 times (the app's traffic takes its capacity, or one partition is hot). Run the command again in a minute; name the app's outboxShards with --outbox-shards <n> (or use --stack, whose outputs name it): without it, the reads of the outbox index query all 100 keys it may use; or raise the table's capacity (its provisioned capacity, or its on-demand maximum throughput)",
    );
    // Given the app's key count, it is not told to pass it.
    const named = await baton(['status', '--outbox-shards', '8'], { AWS_MAX_ATTEMPTS: '1' });
    expect(named.code).toBe(1);
    expect(named.err).toMatch(
      /the table is throttling: .* Run the command again in a minute; or raise/,
    );
    expect(JSON.parse(run.out).error).toMatchObject({ code: 'UNAVAILABLE' });
    // A command that reads no outbox index is not told of its keys; the SDK's own retry mode
    // is not said to have tried a number of times it did not.
    const list = await baton(['dead-letters', 'list'], { AWS_MAX_ATTEMPTS: '1' });
    expect(list.err).toMatch(/refused a call of this command 1 time \(.* minute; or raise/);
    const sdk = await baton(['dead-letters', 'list'], { AWS_RETRY_MODE: 'standard' });
    expect(sdk.err).toMatch(/refused a call of this command past its retries \(/);
  });
});

/** What a command's answer counts, without the times and ages that differ run to run. */
function counts(answer: Record<string, unknown>): unknown {
  return JSON.parse(
    JSON.stringify(answer, (key, value) => (/At$|AgeMs$|Ms$/.test(key) ? undefined : value)),
  );
}

describe('the read commands over a slow table', () => {
  let deployment: OpsDeployment;
  let proxy: ThrottleProxy;

  beforeEach(async () => {
    deployment = await createOpsDeployment('slow');
    proxy = await startThrottleProxy(deployment.options['dynamodb-endpoint']!, 0);
  });
  afterEach(() => proxy.close());

  it('status sends its 300 queries no more at once than the SDK has sockets, so the SDK warns of no socket at capacity', async () => {
    // Each call answered after 1.2 s: status given the table alone queries 100 index keys three
    // times, side by side, which the SDK's 50 sockets take in six rounds of 1.2 s.
    proxy.delayMs = 1200;
    const warnings: string[] = [];
    const warn = vi.spyOn(console, 'warn').mockImplementation((...args: unknown[]) => {
      warnings.push(args.map(String).join(' '));
    });
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on('warning', onWarning);
    try {
      const out: string[] = [];
      const options = { ...deployment.options, 'dynamodb-endpoint': proxy.endpoint };
      const code = await runOps(['status', ...flagsOf(options), '--json'], {
        out: (line) => out.push(line),
        err: (line) => warnings.push(line),
        env: {},
        now: () => Date.now(),
      });
      expect(code).toBe(0);
      expect(JSON.parse(out.join('\n')).healthy).toBe(true);
    } finally {
      warn.mockRestore();
      process.off('warning', onWarning);
    }
    expect(proxy.seen.Query).toBeGreaterThanOrEqual(300);
    expect(warnings.filter((w) => /socket usage at capacity/.test(w))).toEqual([]);
    // Side by side still, as many at once as the SDK's sockets, no more.
    expect(proxy.mostAtOnce).toBeGreaterThan(25);
    expect(proxy.mostAtOnce).toBeLessThanOrEqual(50);
  }, 120_000);
});
