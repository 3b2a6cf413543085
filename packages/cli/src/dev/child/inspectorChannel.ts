import { type AnyQueryDefinition, actor, BatonError, ErrorCode, query } from '@baton/core';
import { type ActorRecord, type ChangeFeed, type Store, TOKEN_GUARDED } from '@baton/core/adapter';
import * as z from 'zod';
import { INSPECTOR_QUERY, type InspectorSnapshot } from '../inspector/InspectorSnapshot.ts';
import { sameSecret } from '../secrets.ts';

/**
 * Keeps the inspector live with Baton's own machinery: the inspector page subscribes to the
 * query `baton.inspector` over the app's WebSocket like any page. That query reads one actor,
 * `baton-inspector/live`, which exists only for the WebSocket host: its record is made up here
 * and its version moves (`pulse()`) whenever the app did something worth showing, so the query
 * engine re-runs the query and pushes the new snapshot (an unchanged snapshot pushes nothing).
 * The app's own client never learns of this actor: messages to it are refused. The query takes
 * this run's inspector token as its argument (`{ token }`), which only the inspector's page has:
 * any other subscriber gets an error and nothing of the app.
 */
const Live = actor({
  name: 'baton-inspector',
  state: z.object({}),
  initial: () => ({}),
  handlers: {},
});
const LIVE_ID = Live.ref('live').id;

export interface InspectorChannel {
  /** The actor to add to the WebSocket host's actors. */
  readonly actor: typeof Live;
  /** The query to add to the WebSocket host's queries: guarded by this run's token. */
  readonly query: AnyQueryDefinition & { readonly [TOKEN_GUARDED]: true };
  /** The store and feed for the WebSocket host: the backend's, plus the made-up actor. */
  readonly store: Store;
  readonly feed: ChangeFeed;
  /** Tells subscribers of the inspector query to look again (at most every 100 ms). */
  pulse(): void;
  close(): void;
}

export function inspectorChannel(
  ports: { readonly store: Store; readonly feed: ChangeFeed },
  token: string,
  snapshot: () => Promise<InspectorSnapshot>,
): InspectorChannel {
  let ver = 1;
  const listeners = new Set<(record: ActorRecord) => void>();
  const record = (): ActorRecord => ({
    id: LIVE_ID,
    ver,
    state: {},
    inboxOffset: '0',
    marks: {},
    sentSeq: 0,
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const store = new Proxy(ports.store, {
    get(target, property) {
      if (property === 'load') {
        return (id: string) => (id === LIVE_ID ? Promise.resolve(record()) : target.load(id));
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  const liveQuery: AnyQueryDefinition = query({
    name: INSPECTOR_QUERY,
    // The inspector page subscribes over the app's WebSocket like any page (with this run's token).
    public: true,
    args: z.object({ token: z.string() }),
    handler: async (ctx, args) => {
      if (!sameSecret(args.token, token)) {
        throw new BatonError(
          ErrorCode.INVALID_ARGUMENT,
          "the inspector's live view needs this run's token: open the inspector at baton dev's /_baton",
        );
      }
      await ctx.get(Live.ref('live'));
      return snapshot();
    },
  });
  return {
    actor: Live,
    // Its token is its authorization: no query the app's callers look for, so a refusal of theirs
    // does not name it.
    query: { ...liveQuery, [TOKEN_GUARDED]: true },
    store,
    feed: {
      subscribe(listener) {
        listeners.add(listener);
        const unsubscribe = ports.feed.subscribe(listener);
        return () => {
          listeners.delete(listener);
          unsubscribe();
        };
      },
    },
    pulse() {
      timer ??= setTimeout(() => {
        timer = undefined;
        ver++;
        for (const listener of [...listeners]) listener(record());
      }, 100);
    },
    close() {
      clearTimeout(timer);
    },
  };
}
