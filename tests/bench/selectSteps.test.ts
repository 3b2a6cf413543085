import { describe, expect, it } from 'vitest';
import { selectSteps } from '../../bench/suite.ts';

const ids = (only: string[]) => selectSteps(only).map((step) => step.id);

describe('BENCH_ONLY: the steps it selects', () => {
  it('runs a step by its id, and every step of a number', () => {
    expect(ids(['3a'])).toEqual(['3a']);
    expect(ids(['2'])).toEqual(['2a', '2b', '2c']);
  });

  it('runs the step that prints a row asked for by its own id', () => {
    expect(ids(['2d'])).toEqual(['2a']);
    expect(ids(['2e'])).toEqual(['2a']);
    expect(ids(['7a'])).toEqual(['7']);
    expect(ids(['8c', '8g'])).toEqual(['8']);
  });

  it('refuses an id no step answers to, naming the ids there are', () => {
    expect(() => ids(['3a', '77'])).toThrow(
      /^BENCH_ONLY: no benchmark has the id 77; the ids are 1a, 1b, 2a, .*a number alone runs all its rows/,
    );
    // A letter no row of the step has.
    expect(() => ids(['7z'])).toThrow(/no benchmark has the id 7z;/);
    expect(() => ids(['6a'])).toThrow(/no benchmark has the id 6a;/);
  });
});
