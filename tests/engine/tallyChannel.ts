/**
 * A sender and a tally on one channel, behind an inbox whose dead-letter queue the test fills:
 * what the channel tests over time (mark retention, forgotten channels) share.
 */
import { actor, silentLogger } from '@baton/core';
import type { Clock, QueueMessage } from '@baton/core/adapter';
import { decodeEnvelope } from '@baton/core/adapter';
import { Worker } from '@baton/core/engine';
import * as z from 'zod';
import { divertingQueue } from './divertingInbox.ts';
import { runUntilIdle, setup } from './helpers.ts';

export const DAY = 24 * 60 * 60 * 1000;

export const Tally = actor({
  name: 'tally',
  state: z.object({ lines: z.array(z.string()) }),
  initial: () => ({ lines: [] as string[] }),
  handlers: {
    add: {
      payload: z.object({ line: z.string() }),
      handle: (ctx, { line }) => {
        ctx.state.lines.push(line);
      },
    },
  },
});

export const Sender = actor({
  name: 'sender',
  state: z.object({}),
  initial: () => ({}),
  handlers: {
    emit: {
      payload: z.object({ line: z.string() }),
      handle: (ctx, { line }) => ctx.send(Tally.ref('t'), 'add', { line }),
    },
    end: { payload: z.object({}), handle: (ctx) => ctx.halt() },
  },
});

/** The line a message to the tally carries. */
export const lineOf = (m: QueueMessage) =>
  (decodeEnvelope(m.body)?.payload as { line?: string } | undefined)?.line;

/**
 * The app, whose inbox moves to `dlq` the messages `divert` names by their line: with a copy
 * delivered as well (`copy`: a worker committed it and never acknowledged), or alone (`only`).
 */
export function tallyApp(
  divert: (line: string | undefined) => 'copy' | 'only' | undefined,
  options: { readonly markRetentionMs?: number } = {},
) {
  const actors = [Sender, Tally];
  const h = setup({ actors });
  const inner = h.backend.queue;
  const dlq: QueueMessage[] = [];
  const queue = divertingQueue(inner, (m) => divert(lineOf(m)), dlq);
  /** A worker on this inbox, on the harness's clock unless told another. */
  const worker = (clock: Clock = h.clock) =>
    new Worker({ actors, store: h.backend.store, queue, clock, logger: silentLogger, ...options });
  const main = worker();
  return {
    h,
    dlq,
    worker,
    run: () => runUntilIdle(main, h.backend, h.clock),
    emit: (line: string) => h.client.send(Sender.ref('s'), 'emit', { line }),
    /** The operator redrives dead-letter queue messages, under `redrive-<dedupe id>`. */
    redrive: (messages: readonly QueueMessage[]) =>
      inner.send(messages.map((m) => ({ ...m, dedupeId: `redrive-${m.dedupeId}` }))),
    /** The tally's lines, and the payloads of its dead letters. */
    tally: async () => {
      const lines = ((await h.state('tally/t')) as { lines: string[] }).lines;
      const letters = await h.backend.store.listDeadLetters('tally/t');
      return { lines, letters: letters.map((l) => l.envelope.payload) };
    },
  };
}
