/** A run on a loaded host says so: its verdicts are unreliable there. */
import { describe, expect, it } from 'vitest';
import { hostWarnings, QUIET_REFERENCE_NS } from '../../bench/hostSpeed.ts';

describe('the host check of a bench run', () => {
  it('warns of nothing on a quiet host', () => {
    expect(hostWarnings({ referenceNs: 1_104, loadAverage: [0.8, 1.9], cores: 2 })).toEqual([]);
  });

  it('warns when the host reference is well above a quiet host’s', () => {
    const warnings = hostWarnings({ referenceNs: 3_093, loadAverage: [0.5], cores: 2 });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/host reference 3093 ns .* verdicts unreliable/);
    expect(
      hostWarnings({ referenceNs: QUIET_REFERENCE_NS * 1.5, loadAverage: [0.5], cores: 2 }),
    ).toEqual([]);
  });

  it('warns when the load average, at the start or the end, is above the core count', () => {
    const warnings = hostWarnings({ referenceNs: 1_000, loadAverage: [1.2, 8.79], cores: 2 });
    expect(warnings).toEqual([
      'load average 8.8 is above the 2 cores: other processes share them, verdicts unreliable',
    ]);
    expect(hostWarnings({ referenceNs: 1_000, loadAverage: [2], cores: 2 })).toEqual([]);
  });
});
