/** latest.json: each result's two estimators and rounds, and a loaded host's warnings. */
import { describe, expect, it } from 'vitest';
import { toJson } from '../../bench/output/json.ts';
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
});
