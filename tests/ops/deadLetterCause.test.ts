/**
 * The cause of a dead letter whose failure has a cause of its own (a deploy's: a payload the
 * code running refuses, `INVALID_PAYLOAD`, waited for as `RETRYABLE`, then `DEAD_LETTERED`), on
 * DynamoDB Local and ElasticMQ: `dead-letters list`, `outcome` (its letter kept, then purged)
 * and the inspector name the same cause, the innermost one, not the `RETRYABLE` that wraps it.
 */
import { join } from 'node:path';
import type { LocalSqsEventSource } from '@baton/aws/local';
import { resolveTarget, startInspector } from '@baton/cli/ops';
import { actor } from '@baton/core';
import { batonCommand, shellQuote } from '@baton/core/engine';
import { beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import {
  createOpsDeployment,
  flagsOf,
  hintWith,
  type OpsDeployment,
  pumpUntil,
  runBaton,
} from './fixtures/opsDeployment.ts';
import { entriesState } from './fixtures/poisonableAdd.ts';

const NOTES = join(import.meta.dirname, 'fixtures', 'notesApp.ts');

/**
 * The note as a release whose `add` takes a number: the string entries the notes app sends are
 * a payload this code refuses (INVALID_PAYLOAD), which the worker waits for newer code to apply.
 */
const NumberedNote = actor({
  name: 'note',
  state: entriesState,
  initial: () => ({ entries: [] as string[] }),
  handlers: {
    add: { public: true, payload: z.object({ entry: z.number() }), handle: () => {} },
  },
});

describe('the cause of a dead letter, as every command prints it', () => {
  let deployment: OpsDeployment;
  let source: LocalSqsEventSource;

  beforeEach(async () => {
    deployment = await createOpsDeployment('cause');
    source = deployment.worker([NumberedNote]);
  });

  const baton = (...argv: string[]) =>
    runBaton([...argv, ...flagsOf(deployment.options), '--operator', 'ops']);
  const hint = (command: string) => hintWith(deployment.options, command);
  const letters = async () => (await baton('dead-letters', 'list', '--json')).json().deadLetters;

  it('names the innermost cause in dead-letters list, outcome and its purge', async () => {
    const sent = await baton('send', 'note/a', 'add', '{"entry":"x"}', '--app', NOTES, '--json');
    expect(sent.code, sent.err).toBe(0);
    const { messageId } = sent.json();
    await pumpUntil(deployment.queue, source, async () => (await letters()).length === 1);

    const [letter] = await letters();
    expect(letter).toMatchObject({ messageId, code: 'INVALID_PAYLOAD' });
    const kept = await baton('outcome', messageId);
    expect(kept.code, kept.err).toBe(0);
    expect(kept.out.split('\n').at(-1)).toBe(
      `its dead letter is kept (cause INVALID_PAYLOAD: ${letter.error}): ${hint(`dead-letters show note/a ${shellQuote(messageId)}`)}`,
    );
    expect((await baton('outcome', messageId, '--json')).json().deadLetterCause).toEqual({
      code: 'INVALID_PAYLOAD',
      message: letter.error,
    });

    const purged = await baton('dead-letters', 'purge', 'note/a', messageId, '--yes');
    expect(purged.code, purged.err).toBe(0);
    expect((await baton('outcome', messageId)).out.split('\n')[0]).toBe(
      'failed DEAD_LETTERED (its cause: INVALID_PAYLOAD)',
    );
  });

  it('names the same cause in the inspector: its dead letters and the actor’s history', async () => {
    const sent = await baton('send', 'note/b', 'add', '{"entry":"x"}', '--app', NOTES, '--json');
    expect(sent.code, sent.err).toBe(0);
    await pumpUntil(deployment.queue, source, async () => (await letters()).length === 1);
    const [letter] = await letters();
    expect(letter.code).toBe('INVALID_PAYLOAD');

    const inspector = await startInspector({
      target: await resolveTarget(deployment.options, {}),
      allowActions: false,
      operator: async () => 'test',
      audit: async () => {},
      followUp: batonCommand,
    });
    try {
      const get = async (path: string) => (await fetch(new URL(path, inspector.url))).json();
      const overview = await get('/_baton/api/overview');
      expect(overview.deadLetters).toEqual([
        expect.objectContaining({ code: 'INVALID_PAYLOAD', error: letter.error }),
      ]);
      const actor = await get('/_baton/api/actor?id=note%2Fb');
      expect(actor.history).toContainEqual(
        expect.objectContaining({
          kind: 'dead letter',
          result: `INVALID_PAYLOAD: ${letter.error} (after ${letter.attempts} attempt(s))`,
        }),
      );
    } finally {
      await inspector.close();
    }
  });
});
