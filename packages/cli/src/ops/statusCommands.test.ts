/**
 * The commands `baton status` names: each bare in its lines, and the target options it was given
 * said once, on a `commands` line after its health line, rather than repeated in every hint;
 * with `--json`, each whole, for a script that runs one.
 */
import { describe, expect, it, vi } from 'vitest';
import { OpsContext, type OpsValues } from './OpsContext.ts';
import { status } from './status.ts';
import type { Target } from './target.ts';

// The inbox is behind, by CloudWatch's age (which the emulators have not).
vi.mock('./queues.ts', () => ({
  readQueues: async () => ({
    queues: [
      { name: 'inbox', url: 'inbox', waiting: 40, inFlight: 3, delayed: 0, oldestAgeMs: 720_000 },
    ],
    ages: 'cloudwatch',
    unread: [],
  }),
}));

/** A deployment with one dead letter, and nothing paused, failing, due or held. */
const target = {
  names: { table: 't', inboxUrl: 'inbox', deadLetterQueueUrl: 'dlq', streamFailureQueueUrl: 'sf' },
  indexReader: {
    listDeadLettersBounded: async () => ({ found: [{ actorId: 'note/a', at: 0 }], complete: true }),
    listDueTimers: async () => [],
    listOutboxActorsBounded: async () => ({ found: [], complete: true }),
  },
  dynamodb: { send: async () => ({ Items: [], ScannedCount: 0 }) },
} as unknown as Target;

/** `baton status` given `values` (its target options among them): what it printed. */
async function statusWith(values: OpsValues): Promise<string> {
  const printed: string[] = [];
  const io = { out: (l: string) => printed.push(l), err: () => {}, env: {}, now: () => 0 };
  const ctx = Object.assign(new OpsContext(io, values, []), {
    target: async () => target,
    checkNamedInbox: async () => {},
  });
  await status(ctx);
  return printed.join('\n');
}

const options = { table: 't', 'queue-url': 'https://sqs.example/1/app-inbox.fifo' };
const flags = '--table t --queue-url https://sqs.example/1/app-inbox.fifo';

describe('baton status’s commands', () => {
  it('names each bare, the target options once after the health line; whole with --json', async () => {
    const lines = (await statusWith(options)).split('\n');
    const health = lines.find((l) => l.startsWith('health'))!;
    expect(health).toMatch(/^health +ATTENTION — 1 dead letter\(s\): baton dead-letters list; /);
    expect(health).toContain('and baton actors get <type/key> of that actor shows');
    // The options are said once, on the line after the health line, and nowhere else.
    expect(lines.join('\n').split(flags)).toHaveLength(2);
    expect(lines[lines.indexOf(health) + 1]).toBe(
      `commands            run each baton command above with these options, to act on this deployment: ${flags}`,
    );

    // --json keeps each command whole, for a script that runs one.
    const json = JSON.parse(await statusWith({ ...options, json: true }));
    expect(json.problems[0]).toBe(`1 dead letter(s): baton dead-letters list ${flags}`);
    expect(json.problems[1]).toContain(`baton actors get <type/key> ${flags} of that actor`);
    // The environment names the target (BATON_TABLE): the commands need nothing added.
    const bare = await statusWith({});
    expect(bare).toMatch(/^health +ATTENTION — 1 dead letter\(s\): baton dead-letters list; /m);
    expect(bare).not.toMatch(/^commands/m);
  });
});
