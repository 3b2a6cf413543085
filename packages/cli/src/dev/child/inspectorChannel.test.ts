/**
 * The dev inspector's own live query, served beside the app's queries: the inspector's page,
 * holding this run's token, subscribes to it; a refusal told to the app's callers lists the
 * queries they may subscribe to, and not this one.
 */
import { type BatonError, callerOf, ErrorCode, query } from '@baton/core';
import { identityScope, resolveInstanceKey } from '@baton/server/evaluation';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { INSPECTOR_QUERY, type InspectorSnapshot } from '../inspector/InspectorSnapshot.ts';
import { embeddedBackend } from './embeddedBackend.ts';
import { inspectorChannel } from './inspectorChannel.ts';

const closing: Array<() => unknown> = [];
afterEach(async () => {
  await Promise.all(closing.splice(0).map((close) => close()));
});

const handler = async () => 0;
const balances = query({ name: 'balances', public: true, args: z.object({}), handler });
const audit = query({ name: 'audit', args: z.object({}), handler });

/** The queries `baton dev`'s WebSocket host serves: the app's, then the inspector's. */
function served() {
  const backend = embeddedBackend({});
  const channel = inspectorChannel(backend, 'the-token', async () => ({}) as InspectorSnapshot);
  closing.push(backend.close, channel.close);
  return new Map([balances, audit, channel.query].map((q) => [q.name, q]));
}

const subscribe = (queries: ReturnType<typeof served>, name: string, args: unknown = {}) =>
  resolveInstanceKey(queries, identityScope, {
    query: name,
    args,
    caller: callerOf(undefined),
  });

describe("the dev inspector's query", () => {
  it("is not listed to the app's callers in a refusal", () => {
    const queries = served();
    for (const name of ['balance', 'audit']) {
      let refused: BatonError | undefined;
      try {
        subscribe(queries, name);
      } catch (error) {
        refused = error as BatonError;
      }
      expect(refused?.code).toBe(ErrorCode.FORBIDDEN);
      expect(refused?.message).toContain('(clients may subscribe to: balances)');
      expect(refused?.message).not.toContain(INSPECTOR_QUERY);
    }
  });

  it("still takes the inspector page's subscription, which holds the token", () => {
    const resolved = subscribe(served(), INSPECTOR_QUERY, { token: 'the-token' });
    expect(resolved.definition.name).toBe(INSPECTOR_QUERY);
  });
});
