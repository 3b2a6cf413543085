/**
 * An actor's failing message as the inspectors show it: what `ActorRecord.failing` holds, and
 * the handler and error a record may keep beside it, shown only when present.
 */
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

  it('adds the handler and the error when the record keeps them', () => {
    const kept = (extra: Record<string, unknown>) =>
      inspectFailing({ ...failing, ...extra } as FailingMessage);
    expect(kept({ handler: 'add', error: { code: 'INTERNAL', message: 'boom' } })).toEqual({
      messageId: 'm-1',
      inboxPosition: '42',
      attempts: 2,
      handler: 'add',
      error: 'INTERNAL: boom',
    });
    expect(kept({ error: 'boom' })).toMatchObject({ error: 'boom' });
    expect(kept({ error: { message: 'boom' } })).toMatchObject({ error: 'boom' });
    // Anything else is left out rather than shown as [object Object].
    expect(kept({ handler: 7, error: { code: 'X' } })).toEqual({
      messageId: 'm-1',
      inboxPosition: '42',
      attempts: 2,
    });
  });
});
