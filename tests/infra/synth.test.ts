/**
 * `pnpm synth` of infra/ works offline and quietly (no npm warnings, no feature flags left unset): the CDK CLI runs the app, the construct bundles every
 * function with esbuild, the page is bundled for S3 and CloudFront, and cdk-nag's AwsSolutions
 * checks pass (a finding fails the synth).
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const infra = new URL('../../infra/', import.meta.url).pathname;
const out = join(infra, 'cdk.out');

describe('infra', () => {
  it('synthesizes the bank stack offline, every function bundled, cdk-nag clean', async () => {
    rmSync(out, { recursive: true, force: true });
    // The README's command, as a user runs it: quiet (no npm warnings about pnpm's settings).
    const { stdout, stderr } = await promisify(execFile)('pnpm', ['run', '--silent', 'synth'], {
      cwd: infra,
      env: { ...process.env, CDK_DISABLE_CLI_TELEMETRY: 'true' },
      maxBuffer: 64 * 1024 * 1024,
    });
    expect(`${stdout}${stderr}`).not.toMatch(/npm warn/i);
    // cdk.json sets the CDK's recommended feature flags: the CLI has none to point out.
    expect(`${stdout}${stderr}`).not.toMatch(/feature flags/i);
    const template = JSON.parse(readFileSync(join(out, 'BatonBank.template.json'), 'utf8'));
    // The app's functions (the page's upload adds one of the CDK's own).
    const functions = Object.values<{ Type: string; Metadata?: Record<string, string> }>(
      template.Resources,
    ).filter(
      (resource) =>
        resource.Type === 'AWS::Lambda::Function' &&
        resource.Metadata?.['aws:cdk:path']?.startsWith('BatonBank/Bank/'),
    );
    expect(functions).toHaveLength(7);
    for (const fn of functions) {
      const asset = fn.Metadata?.['aws:asset:path'];
      expect(asset, 'a bundled asset').toBeDefined();
      const bundle = readFileSync(join(out, asset!, 'index.mjs'), 'utf8');
      // The app's actors are in every bundle but the timer relay's, which needs no app; the AWS
      // SDK is left to the runtime.
      const relay = fn.Metadata?.['aws:cdk:path']?.includes('/RelayFunction/');
      if (relay) expect(bundle).not.toContain('"account"');
      else expect(bundle).toContain('account');
      expect(bundle).not.toMatch(/from\s*"@aws-sdk\/client-dynamodb\/dist/);
      expect(existsSync(join(out, asset!, 'index.mjs.map'))).toBe(true);
    }
    expect(Object.keys(template.Outputs).sort()).toEqual([
      // What `baton --stack` reads (see packages/cli's target.ts).
      ...[
        'DeadLetters',
        'Inbox',
        'Ingress',
        'OutboxShards',
        'StreamFailures',
        'Table',
        'TimerDeadLetters',
        'Timers',
        'WebSocket',
      ].map((what) => expect.stringMatching(new RegExp(`^BankOperator${what}`))),
      'IngressUrl',
      'PageUrl',
      'WebSocketUrl',
    ]);
    // The page is uploaded with the deployed WebSocket URL in it.
    const distributions = Object.values<{ Type: string }>(template.Resources).filter(
      (resource) => resource.Type === 'AWS::CloudFront::Distribution',
    );
    expect(distributions).toHaveLength(1);
  }, 180_000);
});
