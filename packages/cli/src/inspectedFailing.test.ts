/**
 * An actor's failing message as `baton actors get` and the inspectors give it: what
 * `ActorRecord.failing` holds, and the handler and error a record may keep beside it (null when
 * it does not), the error as `{ code, message }` and, for a page, in one line.
 */
import { ErrorCode } from '@baton/core';
import type { FailingMessage } from '@baton/core/adapter';
import { describe, expect, it } from 'vitest';
import { errorLine, failingFor, inspectFailing } from './inspectedFailing.ts';

const failing: FailingMessage = { id: 'm-1', at: '42', attempts: 2 };

describe('inspectFailing', () => {
  it('names the message, its inbox position and its attempts; null when none is failing', () => {
    expect(inspectFailing(undefined)).toBeNull();
    expect(inspectFailing(failing)).toEqual({
      messageId: 'm-1',
      inboxPosition: '42',
      attempts: 2,
      since: null,
      handler: null,
      error: null,
      ended: null,
    });
  });

  it('adds the handler and the error as { code, message } when the record keeps them', () => {
    const kept = {
      ...failing,
      since: 1_000,
      handler: 'add',
      error: { code: ErrorCode.UNAVAILABLE, message: 'boom\n  at x' },
    };
    const inspected = inspectFailing(kept);
    expect(inspected).toEqual({
      messageId: 'm-1',
      inboxPosition: '42',
      attempts: 2,
      since: 1_000,
      handler: 'add',
      error: { code: 'UNAVAILABLE', message: 'boom\n  at x' },
      ended: null,
    });
    expect(errorLine(inspected!.error!)).toBe('UNAVAILABLE: boom at x');
  });
});

describe('failingFor', () => {
  it('says how long a message has failed, and that its age is unknown on a record without it', () => {
    const since = 1_700_000_000_000;
    expect(failingFor(since, since + (3 * 60 + 12) * 60_000 + 5_000)).toBe('failing for 3h 12m');
    expect(failingFor(inspectFailing({ ...failing, since })!.since, since + 12_000)).toBe(
      'failing for 12s',
    );
    expect(failingFor(inspectFailing(failing)!.since, since)).toBe('age unknown');
    expect(failingFor(undefined, since)).toBe('age unknown');
  });
});
