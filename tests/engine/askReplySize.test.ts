/**
 * The reply an actor's ask gets is a message: it must fit an item of its own. A value over what
 * a client's ask takes too rejects the asked message (MESSAGE_TOO_LARGE, its state unchanged),
 * and an error that long goes as its gist — where the turn used to fail at its commit, over and over, with every message
 * of its batch, until the queue moved them all to its dead-letter queue and the askers heard
 * nothing.
 */
import { type AskReply, actor, ErrorCode, TerminalError } from '@baton/core';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { recordingLogger, setup } from './helpers.ts';

const Echo = actor({
  name: 'echo',
  state: z.object({ echoed: z.number() }),
  initial: () => ({ echoed: 0 }),
  handlers: {
    echo: {
      payload: z.object({ bytes: z.number().int() }),
      handle: (ctx, { bytes }) => {
        ctx.state.echoed++;
        return 'y'.repeat(bytes);
      },
    },
    refuse: {
      payload: z.object({ bytes: z.number().int() }),
      handle: (_ctx, { bytes }) => {
        throw new TerminalError('m'.repeat(bytes), { details: { blob: 'd'.repeat(bytes) } });
      },
    },
  },
});

type Reply = AskReply<string, { tag: string }>;

const Asker = actor({
  name: 'asker',
  state: z.object({ got: z.array(z.string()) }),
  initial: () => ({ got: [] as string[] }),
  handlers: {
    ask: {
      payload: z.object({ name: z.enum(['echo', 'refuse']), bytes: z.number(), tag: z.string() }),
      handle: (ctx, { name, bytes, tag }) => {
        ctx.ask(Echo.ref('e'), name, { bytes }, { onReply: 'got', context: { tag } });
      },
    },
    got: {
      payload: z.any(),
      handle: (ctx, reply: Reply) => {
        const said = reply.ok
          ? `ok ${reply.value.length}`
          : `${reply.error.code} ${reply.error.message.length}`;
        ctx.state.got.push(`${reply.context.tag}: ${said}`);
      },
    },
  },
});

describe("the reply to an actor's ask", () => {
  it('rejects the asked message when its value is over what a reply may take, and answers the asks beside it', async () => {
    const { logger, lines } = recordingLogger();
    const h = setup({ actors: [Asker, Echo], maxReceives: 10, logger });
    // A reply's limit: the item, less room for what it is kept with (a client's ask's too).
    const limit = h.backend.store.limits.maxItemBytes - 8192;
    const asker = Asker.ref('a');
    for (const [tag, bytes] of [
      ['before', 10],
      ['huge', limit + 1],
      ['large', limit - 1024],
      // Its JSON ('"yy…y"') exactly the limit: taken.
      ['edge', limit - 2],
      ['after', 10],
    ] as const) {
      await h.client.send(asker, 'ask', { name: 'echo', bytes, tag });
    }
    await h.run();
    const { got } = (await h.state(asker.id)) as { got: string[] };
    expect(got).toHaveLength(5);
    expect(got).toContain(`edge: ok ${limit - 2}`);
    expect(got).toContain('before: ok 10');
    expect(got).toContain(`large: ok ${limit - 1024}`);
    expect(got).toContain('after: ok 10');
    expect(got.find((line) => line.startsWith('huge: '))).toMatch(/^huge: MESSAGE_TOO_LARGE \d+$/);
    // The too-large reply left the asked actor as it was.
    expect(await h.state('echo/e')).toEqual({ echoed: 4 });
    expect(h.backend.queue.deadLetters()).toEqual([]);
    expect(lines.filter((line) => line.level === 'error')).toEqual([]);
    const rejected = lines.find((line) => line.fields.code === ErrorCode.MESSAGE_TOO_LARGE);
    expect(rejected?.fields.error).toContain(`is larger than the ${limit} bytes`);
  });

  it('sends a rejection whose error is over a payload as its gist', async () => {
    const h = setup({ actors: [Asker, Echo], maxReceives: 10 });
    const limit = h.backend.store.limits.maxItemBytes / 2;
    await h.client.send(Asker.ref('a'), 'ask', { name: 'refuse', bytes: limit, tag: 'long' });
    await h.client.send(Asker.ref('a'), 'ask', { name: 'refuse', bytes: 20, tag: 'short' });
    await h.run();
    expect(await h.state('asker/a')).toEqual({
      got: ['long: REJECTED 1000', 'short: REJECTED 20'],
    });
    expect(h.backend.queue.deadLetters()).toEqual([]);
  });
});
