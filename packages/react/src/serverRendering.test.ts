import type { BatonClient, QueryObserver } from '@baton/client';
import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { BatonContext } from './BatonContext.ts';
import { BatonProvider } from './BatonProvider.tsx';
import { useConnectionState } from './useConnectionState.ts';
import { useQuery } from './useQuery.ts';

/** A client whose query holds a result and whose connection is open: what a browser may have. */
const liveClient = {
  connectionState: 'open',
  subscribeConnectionState: () => () => {},
  observe: (): QueryObserver<number> => ({
    subscribe: () => () => {},
    getSnapshot: () => ({ status: 'success', data: 5, error: undefined, version: 1 }),
  }),
} as unknown as BatonClient;

function View() {
  const { status, data } = useQuery<number>('count', {});
  return `${status}:${data ?? ''}|${useConnectionState()}`;
}

describe('the hooks on the server', () => {
  it('render a pending query and a connecting connection, whatever the client holds, so hydration matches', () => {
    const html = renderToString(
      createElement(BatonContext.Provider, { value: liveClient }, createElement(View)),
    );
    expect(html).toBe('pending:|connecting');
  });

  it('render the fallback of a provider given a function that creates the client, without calling it', () => {
    let created = 0;
    const create = () => {
      created += 1;
      return liveClient;
    };
    const html = renderToString(
      createElement(BatonProvider, { client: create, fallback: 'loading' }, createElement(View)),
    );
    expect(html).toBe('loading');
    expect(created).toBe(0);
  });
});
