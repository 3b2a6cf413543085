/** latest.json: each result's two estimators and rounds, and a loaded host's warnings. */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { toJson, writeJson } from '../../bench/output/json.ts';
import type { Row } from '../../bench/report.ts';

const twoA: Row = {
  bench: '2a. hot actor',
  baseline: '60 msg/s',
  candidate: '397 msg/s',
  ratio: 8.206,
  quotient: 6.677,
  spread: [6.762, 8.306],
  rounds: 7,
  budget: { kind: 'min', value: 8 },
};
const run = { target: 'emulators', quick: false, totalSeconds: 1 };

describe('latest.json', () => {
  it('records both estimators and the rounds, and meets a budget only when both do', () => {
    const [result] = toJson([twoA], run).results as Record<string, unknown>[];
    expect(result).toMatchObject({
      ratio: 8.206,
      quotient: 6.677,
      rounds: 7,
      met: false,
      withinNoise: true,
    });
  });

  it('carries the load average and the warnings of a loaded host, and no warnings on a quiet one', () => {
    const loaded = toJson([], {
      ...run,
      referenceNs: 3_000,
      loadAverage: [8.8, 7.2],
      warnings: ['load average 8.8 is above the 2 cores'],
    });
    expect(loaded.machine.loadAverage).toEqual([8.8, 7.2]);
    expect(loaded.warnings).toEqual(['load average 8.8 is above the 2 cores']);
    expect('warnings' in toJson([], { ...run, warnings: [] })).toBe(false);
  });

  it('writes short arrays on one line and a long one an element a line, as the formatter does', () => {
    const warning =
      "host reference 1733 ns is above 1500 (1.5x a quiet host's 1000): a loaded or slower host, verdicts unreliable";
    const path = join(mkdtempSync(join(tmpdir(), 'baton-json-')), 'latest.json');
    writeJson(path, toJson([twoA], { ...run, loadAverage: [1.36, 1.01], warnings: [warning] }));
    const lines = readFileSync(path, 'utf8').split('\n');
    expect(lines).toContain('      "iqr": [6.762, 8.306],');
    expect(lines).toContain('    "loadAverage": [1.36, 1.01]');
    expect(lines).toContain('  "warnings": [');
    expect(lines).toContain(`    ${JSON.stringify(warning)}`);
  });
});
