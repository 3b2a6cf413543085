import { describe, expect, it } from 'vitest';
import { readBacklog } from './backlog.ts';
import type { Target } from './target.ts';

/** A deployment with nothing kept, whose role may not scan the table. */
const target = {
  names: { table: 't', inboxUrl: 'inbox' },
  queue: { approximateCounts: async () => ({ visible: 5, inFlight: 1 }) },
  indexReader: {
    listDeadLetters: async () => [],
    listDueTimers: async () => [],
    listOutboxActors: async () => [],
  },
  dynamodb: {
    send: async () => {
      throw Object.assign(new Error('not authorized to perform: dynamodb:Scan'), {
        name: 'AccessDeniedException',
      });
    },
  },
} as unknown as Target;

describe('baton backlog without dynamodb:Scan', () => {
  it('counts the rest, and says it could not read the failing messages, and why', async () => {
    const backlog = await readBacklog(target, Date.now(), { top: 20, scanItems: 100 });
    expect(backlog.inbox).toEqual({ waiting: 5, inFlight: 1 });
    expect(backlog.actors).toEqual([]);
    const unread = backlog.notCounted.find((n) =>
      n.startsWith('failing messages, which could not be read'),
    );
    expect(unread).toMatch(/not authorized to perform: dynamodb:Scan.*which needs dynamodb:Scan$/);
  });

  it('says an actor hot with messages in the inbox alone is not listed, and where to find it', async () => {
    const backlog = await readBacklog(target, Date.now(), { top: 20, scanItems: 100 });
    expect(backlog.notCounted[0]).toMatch(
      /, and an actor hot with messages there alone is not listed: the table's Contributor Insights \(BatonApp's contributorInsights\) names the actors taking the most requests \(keys A#<type\/key>\), and the worker's log the actors whose turns fail \(turn failed, message will be retried\)$/,
    );
  });
});

describe('baton backlog given the table alone', () => {
  it("counts what the table records, leaving out the inbox's count, and says so", async () => {
    const alone = { ...target, names: { table: 't' }, queue: undefined } as unknown as Target;
    const backlog = await readBacklog(alone, Date.now(), { top: 20, scanItems: 100 });
    expect(backlog.inbox).toBeNull();
    expect(backlog.notCounted[0]).toMatch(
      /^messages in the inbox queue, which is not named \(--queue-url or BATON_INBOX_URL\)/,
    );
  });
});
