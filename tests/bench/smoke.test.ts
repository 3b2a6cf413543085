/**
 * The benchmarks' smoke mode, in-process against the emulators the test setup started: every
 * selected benchmark runs small, each round checks that all its messages were applied exactly
 * once, and every row comes back well-formed. Speed is not checked here.
 */
import { describe, expect, inject, it } from 'vitest';
import { referenceNs } from '../../bench/hostSpeed.ts';
import { toJson } from '../../bench/output/json.ts';
import { latencySvg } from '../../bench/output/svg.ts';
import { verdict } from '../../bench/report.ts';
import { runSuite, selectSteps } from '../../bench/suite.ts';

describe('pnpm bench, smoke mode on DynamoDB Local and ElasticMQ', () => {
  it('runs turn overhead (emulators and embedded), hot actor (and its ceiling), ping-pong (and on caching clients), propagation, fan-out (on the local server and through the local gateway), cost, embedded turns, workflows and the sweeper', async () => {
    const lines: string[] = [];
    const { rows, errors, target } = await runSuite({
      quick: true,
      only: ['1a', '1b', '2a', '2d', '2b', '3a', '3c', '4a', '4c', '4f', '5', '6', '8', '9'],
      endpoints: { dynamodb: inject('dynamodbEndpoint'), sqs: inject('sqsEndpoint') },
      log: (line) => lines.push(line),
    });
    expect(errors, lines.join('\n')).toEqual([]);
    expect(target).toBe('DynamoDB Local + ElasticMQ');
    const ids = rows.map((row) => row.bench.slice(0, row.bench.indexOf('.')));
    expect(ids).toEqual([
      '1a',
      '1b',
      '2a',
      '2d',
      '2e',
      '2b',
      '3a',
      '3c',
      '4a',
      '4c',
      '4f',
      '5a',
      '5b',
      '5c',
      '5d',
      '6',
      '8a',
      '8b',
      '8c',
      '8d',
      '8e',
      '8f',
      '8g',
      '9',
    ]);
    for (const row of rows) {
      // Each row can be asked for by its id: a step's `prints` names every row it adds.
      const id = row.bench.slice(0, row.bench.indexOf('.'));
      expect(selectSteps([id]), id).toHaveLength(1);
      expect(Number.isFinite(row.ratio) && row.ratio > 0, row.bench).toBe(true);
      expect(
        row.values && Number.isFinite(row.values.baseline + row.values.candidate),
        row.bench,
      ).toBe(true);
      expect(['PASS', 'OVER', 'UNDER', '—']).toContain(verdict(row));
    }
    // Steps 1–4 on the emulators keep their latency samples for the chart.
    const onEmulators = (r: (typeof rows)[number]) => r.bench.includes('DynamoDB Local');
    const charted = rows.filter((r) => /^[1-4]/.test(r.bench) && onEmulators(r));
    expect(charted.map((r) => r.bench.slice(0, 2))).toEqual([
      '1a',
      '2a',
      '2d',
      '2e',
      '2b',
      '3a',
      '3c',
      '4a',
      '4c',
      '4f',
    ]);
    for (const row of charted) {
      expect(row.latencies?.baseline.length, row.bench).toBeGreaterThan(0);
      expect(row.latencies?.candidate.length, row.bench).toBeGreaterThan(0);
    }
    // DESIGN's budgets, on the emulators' rows only: an embedded comparison is for reading.
    const budgetOf = (id: string) => rows.find((r) => r.bench.startsWith(`${id}.`))?.budget;
    expect(budgetOf('1a')).toEqual({ kind: 'max', value: 1.1 });
    expect(budgetOf('3a')).toEqual({ kind: 'max', value: 1.2 });
    expect(budgetOf('4a')).toEqual({ kind: 'max', value: 1.2 });
    expect(budgetOf('4f')).toEqual({ kind: 'max', value: 1.2 });
    expect(budgetOf('5a')).toEqual({ kind: 'max', value: 0.3 });
    expect(budgetOf('6')).toEqual({ kind: 'min', value: 1 });
    expect(budgetOf('8d')).toEqual({ kind: 'max', value: 1.2 });
    expect(budgetOf('8e')).toEqual({ kind: 'max', value: 1.5 });
    expect(budgetOf('8g')).toEqual({ kind: 'max', value: 1.1 });
    // The loop that runs its steps unconfirmed, for reading; 8d's loop reads its record first.
    expect(budgetOf('8f')).toBeUndefined();
    const reads = (id: string) => rows.find((r) => r.bench.startsWith(`${id}.`))!.calls!.baseline!;
    expect(reads('8d').GetItem).toBeGreaterThan(reads('8f').GetItem ?? 0);
    expect(budgetOf('1b')).toBeUndefined();
    expect(budgetOf('4c')).toBeUndefined();
    // The hand-written batch loop is the emulators' ceiling, for reading.
    expect(budgetOf('2d')).toBeUndefined();
    // 2e pairs 2a's Worker rounds with 2d's, so its two rates are theirs.
    const rowOf = (id: string) => rows.find((r) => r.bench.startsWith(`${id}.`))!;
    expect(budgetOf('2e')).toBeUndefined();
    expect(rowOf('2e').values!.candidate).toBe(rowOf('2a').values!.candidate);
    expect(rowOf('2e').values!.baseline).toBe(rowOf('2d').values!.candidate);
    expect(rowOf('2e').rounds).toBe(2);
    // ≥ 8x against one message per transaction: by hand (2a, the stricter) and the Worker's own
    // batch 1 (2b).
    expect(budgetOf('2a')).toEqual({ kind: 'min', value: 8 });
    expect(budgetOf('2b')).toEqual({ kind: 'min', value: 8 });
    const hot = rows.find((r) => r.bench.startsWith('2a'))!;
    // Its verdict's two estimators, and the rounds it rests on.
    expect(hot.rounds).toBe(2);
    expect(Number.isFinite(hot.quotient)).toBe(true);
    expect(hot.calls?.baton?.TransactWriteItems).toBeGreaterThan(0);
    // Batch 10: a record write plus one outcome page write for the ten ingress messages.
    const writes = rows.find((r) => r.bench.startsWith('5a'))!;
    expect(writes.values?.candidate).toBeCloseTo(0.2, 5);

    const reference = referenceNs();
    expect(Number.isInteger(reference) && reference > 0).toBe(true);
    const json = toJson(rows, {
      target: target!,
      quick: true,
      totalSeconds: 1,
      referenceNs: reference,
    });
    expect(json.machine.referenceNs).toBe(reference);
    expect(json).not.toHaveProperty('referenceNs');
    for (const result of json.results) {
      expect(result).toEqual(
        expect.objectContaining({
          name: expect.any(String),
          baton: expect.any(Number),
          baseline: expect.any(Number),
          ratio: expect.any(Number),
        }),
      );
      expect(result).toHaveProperty('budget');
      expect(result).toHaveProperty('met');
    }
    expect(json.machine.cpus).toBeGreaterThan(0);
    expect(latencySvg(rows, 'smoke')).toMatch(/^<svg[\s\S]*<\/svg>\n$/);
  }, 240_000);
});
