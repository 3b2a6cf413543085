import type { BatonClient, QueryObserver } from '@baton/client';
import { PENDING_STATE } from '@baton/client';
import { createElement, useState } from 'react';
import { renderToString } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { BatonContext } from './BatonContext.ts';
import { useQuery } from './useQuery.ts';

/** A client that records the args of every observer it hands out. */
function recordingClient(observed: unknown[]): BatonClient {
  return {
    observe: (_query: string, args: unknown): QueryObserver<unknown> => {
      observed.push(args);
      return { subscribe: () => () => {}, getSnapshot: () => PENDING_STATE };
    },
  } as unknown as BatonClient;
}

/** Skips its query until ready, which it becomes at once. */
function Ready() {
  const [ready, setReady] = useState(false);
  useQuery('count', ready ? undefined : 'skip');
  // An update during render: React renders the component again at once, keeping its hooks.
  if (!ready) setReady(true);
  return null;
}

describe('useQuery', () => {
  it("observes anew when its args go from 'skip' to undefined", () => {
    const observed: unknown[] = [];
    const client = recordingClient(observed);
    renderToString(createElement(BatonContext.Provider, { value: client }, createElement(Ready)));
    expect(observed).toEqual(['skip', undefined]);
  });
});
