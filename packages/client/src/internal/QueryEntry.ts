import type { BatonError } from '@baton/core';
import type {
  JsonValue,
  PatchMessage,
  ResultMessage,
  SubscribeMessage,
  UnchangedMessage,
} from '@baton/protocol';
import { applyPatch, PROTOCOL_VERSION } from '@baton/protocol';
import { PENDING_STATE, type QueryState } from '../QueryState.ts';

/** A push for one subscription. */
export type Push = ResultMessage | PatchMessage | UnchangedMessage;

/**
 * One shared subscription, for one (query, canonical args): its listeners, the state they see,
 * and the hash of the value it holds (what a resume sends).
 */
export class QueryEntry {
  readonly key: string;
  readonly query: string;
  readonly args: unknown;
  readonly listeners = new Set<(state: QueryState<unknown>) => void>();
  /** The id of its subscription on the current socket, if subscribed there. */
  wireId: string | undefined;
  /** Pending unsubscribe after the last listener left. */
  dropTimer: unknown;
  /** Pending subscribe again after the server refused it for now. */
  retryTimer: unknown;
  /** Refusals for now since its last result: the retry's backoff exponent. */
  retries = 0;
  #state: QueryState<unknown> = PENDING_STATE;
  /** The hash of `#state.data` as the server named it; `undefined` when no value is held. */
  #hash: string | undefined;
  /** The newest version applied under the current wire id. */
  #wireVersion: number | undefined;

  constructor(key: string, query: string, args: unknown) {
    this.key = key;
    this.query = query;
    this.args = args;
  }

  get state(): QueryState<unknown> {
    return this.#state;
  }

  /** The subscribe frame for a new socket: with `resume` when a value is held. */
  subscribeFrame(id: string): SubscribeMessage {
    this.#wireVersion = undefined;
    const { version } = this.#state;
    const resume =
      this.#hash !== undefined && version !== undefined ? { version, hash: this.#hash } : undefined;
    return {
      v: PROTOCOL_VERSION,
      type: 'subscribe',
      id,
      query: this.query,
      args: this.args,
      resume,
    };
  }

  /**
   * Whether a newer push of this subscription came first. On API Gateway the answer to a
   * subscribe and a stream handler's push leave from different invocations, and a throttled
   * one is retried after a pause: they may cross. The server never numbers the pushes of one
   * subscription id downward (a resume starts at the version held), so an older one is stale.
   */
  isStale(push: Push): boolean {
    return this.#wireVersion !== undefined && push.version < this.#wireVersion;
  }

  /**
   * Applies a push. Returns false when it does not fit the value held (a patch from another
   * base, an `unchanged` for another hash): then subscribe again without `resume`.
   */
  apply(push: Push): boolean {
    const held = this.#state;
    let data: unknown;
    if (push.type === 'result') {
      data = push.hash === this.#hash ? held.data : push.value;
    } else if (push.type === 'unchanged') {
      if (push.hash !== this.#hash) return false;
      data = held.data;
    } else {
      if (this.#hash === undefined || push.baseVersion !== held.version) return false;
      if (push.hash === this.#hash) data = held.data;
      else {
        try {
          data = applyPatch(held.data as JsonValue, push.ops);
        } catch {
          return false;
        }
      }
    }
    this.#hash = push.hash;
    this.#wireVersion = push.version;
    if (held.status === 'success' && held.data === data && held.version === push.version) {
      return true;
    }
    this.#set({ status: 'success', data, error: undefined, version: push.version });
    return true;
  }

  /** The server refused or failed the query: keep the last good data. */
  fail(error: BatonError): void {
    const { data, version } = this.#state;
    this.#set({ status: 'error', data, error, version });
  }

  /** Forget the value held, so the next subscribe asks for a full result. */
  forgetHash(): void {
    this.#hash = undefined;
  }

  #set(state: QueryState<unknown>): void {
    this.#state = state;
    for (const listener of [...this.listeners]) {
      try {
        listener(state);
      } catch (error) {
        // One listener's bug must not starve the others: report it like an uncaught error.
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }
}
