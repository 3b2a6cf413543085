/**
 * A Powertools for AWS Lambda `Logger` is a Baton `Logger` as it is: the engine writes its
 * entries, and a handler's `ctx.log` its keys (actor, message id, inbox position), through it.
 */
import { Logger as PowertoolsLogger } from '@aws-lambda-powertools/logger';
import { actor, type Logger } from '@baton/core';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { setup } from './helpers.ts';

const Greeter = actor({
  name: 'greeter',
  state: z.object({}),
  initial: () => ({}),
  handlers: {
    greet: {
      payload: z.object({ who: z.string() }),
      handle: (ctx, { who }) => {
        ctx.log.info('greeting', { who });
      },
    },
  },
});

describe('a Powertools Logger', () => {
  it('is accepted as the engine logger and receives ctx.log entries with their keys', async () => {
    const lines: string[] = [];
    const powertools = new PowertoolsLogger({ serviceName: 'bank', logLevel: 'INFO' });
    // Capture what Powertools writes: one JSON line per entry, through its console.
    const write = (line: unknown) => lines.push(String(line));
    Object.assign(powertools, {
      console: { info: write, warn: write, error: write, debug: write, log: write },
    });
    const logger: Logger = powertools;
    const h = setup({ actors: [Greeter] });
    const { Worker } = await import('@baton/core/engine');
    const worker = new Worker({ ...h.engine, logger });
    await h.client.send(Greeter.ref('g'), 'greet', { who: 'ada' });
    while ((await worker.poll()) > 0);
    const entry = lines.map((line) => JSON.parse(line)).find((e) => e.message === 'greeting');
    expect(entry).toMatchObject({
      level: 'INFO',
      service: 'bank',
      who: 'ada',
      actor: 'greeter/g',
      inboxPosition: expect.any(String),
      messageId: expect.stringMatching(/^ingress:/),
    });
  });
});
