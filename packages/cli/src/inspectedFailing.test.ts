/**
 * An actor's failing message as the inspectors show it: what `ActorRecord.failing` holds, and
 * the handler and error a record may keep beside it, shown only when present.
 */
import { ErrorCode } from '@baton/core';
import type { FailingMessage } from '@baton/core/adapter';
import { describe, expect, it } from 'vitest';
import { inspectFailing } from './inspectedFailing.ts';

const failing: FailingMessage = { id: 'm-1', at: '42', attempts: 2 };

describe('inspectFailing', () => {
  it('names the message, its inbox position and its attempts; null when none is failing', () => {
    expect(inspectFailing(undefined)).toBeNull();
    expect(inspectFailing(failing)).toEqual({
      messageId: 'm-1',
      inboxPosition: '42',
      attempts: 2,
    });
  });

  it('adds the handler and the error, in a line, when the record keeps them', () => {
    const kept = {
      ...failing,
      handler: 'add',
      error: { code: ErrorCode.UNAVAILABLE, message: 'boom\n  at x' },
    };
    expect(inspectFailing(kept)).toEqual({
      messageId: 'm-1',
      inboxPosition: '42',
      attempts: 2,
      handler: 'add',
      error: 'UNAVAILABLE: boom at x',
    });
  });
});
