import { afterEach, describe, expect, it, vi } from 'vitest';
import { childLogger, jsonLogger } from './logger.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

/** What `run` writes to stdout and through `console.log`, kept instead of printed. */
function captured(run: () => void): { stdout: string; console: unknown[][] } {
  let stdout = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    stdout += String(chunk);
    return true;
  });
  const log = vi.spyOn(console, 'log').mockImplementation(() => {});
  run();
  return { stdout, console: log.mock.calls };
}

describe('jsonLogger', () => {
  it('writes each entry to stdout as one JSON line, past console (which Lambda prefixes)', () => {
    const out = captured(() => {
      const log = jsonLogger({ fields: { service: 'bank' } });
      log.info('sweep left outboxes behind', { left: 3 });
      childLogger(log, { actor: 'account/alice' }).error('turn failed', { code: 'UNAVAILABLE' });
    });
    expect(out.console).toEqual([]);
    expect(out.stdout.endsWith('\n')).toBe(true);
    expect(
      out.stdout
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line)),
    ).toEqual([
      { level: 'info', message: 'sweep left outboxes behind', service: 'bank', left: 3 },
      {
        level: 'error',
        message: 'turn failed',
        service: 'bank',
        actor: 'account/alice',
        code: 'UNAVAILABLE',
      },
    ]);
  });

  it('drops entries below its level, and writes through `write` when given one', () => {
    const lines: string[] = [];
    const out = captured(() => {
      const log = jsonLogger({ level: 'warn', write: (line) => lines.push(line) });
      log.info('not this');
      log.warn('this');
    });
    expect(out).toEqual({ stdout: '', console: [] });
    expect(lines.map((line) => JSON.parse(line))).toEqual([{ level: 'warn', message: 'this' }]);
  });
});
