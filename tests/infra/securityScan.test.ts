/**
 * Outside scanners on the example stack: cfn-lint with its serverless rules and checkov run on
 * the bank's synthesized template. Every finding must be one that infra/security-findings.md
 * accepts with its reason, and every row there must still match a finding, so the list is the
 * stack's whole account of what the scanners say. The scanners are installed at pinned versions
 * on first use (see fixtures/iacScanners.ts).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptedFindings } from './fixtures/acceptedFindings.ts';
import { cfnLint, checkov, type Finding, installScanners } from './fixtures/iacScanners.ts';
import { synthBank } from './fixtures/synthBank.ts';

const FINDINGS_FILE = new URL('../../infra/security-findings.md', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'baton-scan-'));
let findings: (Finding & { path: string })[] = [];
type Resource = { Type: string; Properties?: any; Metadata?: Record<string, string> };
let resources: Record<string, Resource> = {};

beforeAll(async () => {
  const home = await installScanners();
  // The template as `cdk synth` writes it; the functions' bundles do not change it, so bundling
  // is skipped (tests/infra/synth.test.ts bundles for real).
  const template = await synthBank<{ Resources: Record<string, Resource> }>(join(dir, 'cdk.out'), {
    'aws:cdk:enable-path-metadata': true,
    'aws:cdk:bundling-stacks': [],
  });
  resources = template.Resources;
  const file = join(dir, 'BatonBank.template.json');
  writeFileSync(file, JSON.stringify(template, null, 1));
  const pathOf = (id: string) => template.Resources[id]?.Metadata?.['aws:cdk:path'] ?? id;
  const found = (await Promise.all([cfnLint(home, file), checkov(home, file)])).flat();
  findings = found.map((finding) => ({ ...finding, path: pathOf(finding.logicalId) }));
}, 900_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const accepted = acceptedFindings(FINDINGS_FILE);
const matches = (row: (typeof accepted)[number], finding: (typeof findings)[number]) =>
  row.tool === finding.tool &&
  row.rule === finding.rule &&
  row.paths.some((path) => path.test(finding.path));
const show = (finding: (typeof findings)[number]) =>
  `${finding.tool} ${finding.rule} ${finding.path}: ${finding.message}`;

describe('cfn-lint and checkov on the example stack', () => {
  it('find nothing that infra/security-findings.md does not accept with its reason', () => {
    expect(findings.length).toBeGreaterThan(0); // the scanners ran and reported
    const unlisted = findings.filter((finding) => !accepted.some((row) => matches(row, finding)));
    expect(unlisted.map(show)).toEqual([]);
  });

  it('still find every finding the file accepts (no stale row)', () => {
    const stale = accepted.filter((row) => !findings.some((finding) => matches(row, finding)));
    expect(stale.map((row) => row.row)).toEqual([]);
  });

  it("find none of the review's real ones: stage throttling, reserved concurrency, the stream's failure destination", () => {
    const real = findings.filter(
      (f) =>
        (f.rule === 'ES2003' && f.path.includes('/WebSocketStage/')) ||
        (f.rule === 'CKV_AWS_115' && /\/(Websocket|Ingress|Stream)Function\//.test(f.path)) ||
        (f.rule === 'ES1001' && f.path.includes('/StreamFunction/')),
    );
    expect(real.map(show)).toEqual([]);
  });

  it('log every function, the page upload’s too, to a log group with a retention (what WS1004 cannot see)', () => {
    const functions = Object.entries(resources).filter(
      ([, r]) => r.Type === 'AWS::Lambda::Function',
    );
    expect(functions.length).toBeGreaterThan(7);
    const unkept = functions
      .filter(([, fn]) => {
        const group = resources[fn.Properties?.LoggingConfig?.LogGroup?.Ref];
        return group?.Type !== 'AWS::Logs::LogGroup' || !(group.Properties?.RetentionInDays > 0);
      })
      .map(([id, fn]) => fn.Metadata?.['aws:cdk:path'] ?? id);
    expect(unkept).toEqual([]);
  });
});
