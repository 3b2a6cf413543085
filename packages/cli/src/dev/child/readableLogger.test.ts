import { describe, expect, it } from 'vitest';
import { readableLogger } from './readableLogger.ts';

function logged(level: 'debug' | 'info' | 'warn' | 'error' | 'silent') {
  const lines: string[] = [];
  const logger = readableLogger({
    level,
    write: (line) => lines.push(line),
    now: () => new Date(2026, 0, 2, 12, 3, 4),
  });
  return { logger, lines };
}

describe('the terminal logger of baton dev', () => {
  it('prints one line with the time, level, actor, message and fields, hiding trace fields', () => {
    const { logger, lines } = logged('info');
    logger.info('added', {
      actor: 'counter/a',
      messageId: 'ingress:["counter/a","k"]',
      traceId: 'abc',
      inboxPosition: 3,
      n: 2,
      note: 'two words',
    });
    expect(lines).toEqual(['12:03:04 info  counter/a: added n=2 note="two words"']);
  });

  it('prints the stack of an error below its line, and the message id of a warning', () => {
    const { logger, lines } = logged('info');
    logger.warn('message will be retried', {
      actor: 'counter/a',
      messageId: 'm-1',
      error: 'boom',
      stack: 'Error: boom\n    at handle (src/app.ts:12:11)',
    });
    expect(lines).toEqual([
      '12:03:04 warn  counter/a: message will be retried error=boom messageId=m-1\n    Error: boom\n        at handle (src/app.ts:12:11)',
    ]);
  });

  it('prints nothing below its level', () => {
    const { logger, lines } = logged('warn');
    logger.debug('d');
    logger.info('i');
    logger.warn('w');
    expect(lines).toEqual(['12:03:04 warn  w']);
  });
});
