import {
  encodeMessage,
  type JsonValue,
  PROTOCOL_VERSION,
  type ResultMessage,
  resumeAnswer,
  type ServerMessage,
  type VersionedValue,
} from '@baton/protocol';
import type { QueryResult } from '../QueryUpdate.ts';

/** A frame for any subscription of one instance: everything but the subscription's id. */
export interface SharedFrame {
  readonly frame:
    | Omit<ResultMessage, 'id'>
    | Exclude<ReturnType<typeof resumeAnswer>, ResultMessage>;
  /** The frame's JSON text without its closing brace: the id goes after it. */
  readonly head: string;
}

/**
 * The frames that carry one result to its subscribers, made once per result and base: every
 * subscriber of an instance gets the same result object, and those that acknowledged the same
 * version need the same patch. So one fan-out to 10,000 subscriptions diffs and encodes once
 * per distinct base (usually one), not 10,000 times. Held weakly by the result: entries go
 * when the instance moves on.
 *
 * @example
 * const shared = frames.of(result, base);
 * connection.send({ ...shared.frame, id }, withId(shared, id));
 */
export class SharedFrames {
  readonly #byResult = new WeakMap<QueryResult, Map<string, SharedFrame | null>>();
  readonly #seen = new WeakSet<QueryResult>();

  /** True the first time it is given `result`: what once per result needs doing (caching it). */
  firstSight(result: QueryResult): boolean {
    if (this.#seen.has(result)) return false;
    this.#seen.add(result);
    return true;
  }

  /**
   * The frame from `base` (the value the client acknowledged) to `result`; `undefined` if it
   * cannot be encoded (the caller then sends the frame itself, which reports why).
   */
  of(result: QueryResult, base: VersionedValue | undefined): SharedFrame | undefined {
    let frames = this.#byResult.get(result);
    if (!frames) {
      frames = new Map();
      this.#byResult.set(result, frames);
    }
    const key = base ? `${base.version}\u0000${base.hash}` : '';
    let shared = frames.get(key);
    if (shared === undefined) {
      shared = make(result, base);
      frames.set(key, shared);
    }
    return shared ?? undefined;
  }
}

function make(result: QueryResult, base: VersionedValue | undefined): SharedFrame | null {
  const current = { version: result.version, hash: result.hash, value: result.value as JsonValue };
  const frame = base
    ? resumeAnswer({ lastVersion: base.version, hash: base.hash }, current, base)
    : ({ v: PROTOCOL_VERSION, type: 'result', ...current } as const);
  try {
    // The id is a frame's last key, as in `{ ...frame, id }`: the same bytes as encoding that.
    return { frame, head: encodeMessage(frame as ServerMessage).slice(0, -1) };
  } catch {
    return null;
  }
}

/**
 * The text of a shared frame for subscription `id`.
 *
 * @example
 * withId(shared, 's1'); // '{"v":1,"type":"result",…,"id":"s1"}'
 */
export function withId(shared: SharedFrame, id: string): string {
  return `${shared.head},"id":${JSON.stringify(id)}}`;
}
