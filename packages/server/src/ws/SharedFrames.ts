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
 * per distinct base (usually one), not 10,000 times. A base is looked up by identity first (the
 * result a stream was sent is the base of its next frame, the same object for every stream),
 * then by version and hash (a base a resume rebuilt). Held weakly by the result: entries go
 * when the instance moves on.
 *
 * @example
 * const shared = frames.of(result, base);
 * connection.send(shared.head + idTail(id));
 */
export class SharedFrames {
  readonly #byResult = new WeakMap<QueryResult, FramesOf>();
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
      frames = { byBase: new Map(), byKey: new Map() };
      this.#byResult.set(result, frames);
    }
    let shared = frames.byBase.get(base);
    if (shared === undefined) {
      const key = base ? `${base.version}\u0000${base.hash}` : '';
      shared = frames.byKey.get(key);
      if (shared === undefined) {
        shared = make(result, base);
        frames.byKey.set(key, shared);
      }
      frames.byBase.set(base, shared);
    }
    return shared ?? undefined;
  }
}

/** One result's frames, by base object and by base version and hash. */
interface FramesOf {
  readonly byBase: Map<VersionedValue | undefined, SharedFrame | null>;
  readonly byKey: Map<string, SharedFrame | null>;
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
 * The end of a frame for subscription `id`, to put after a shared frame's head: computed once
 * per subscription, not once per push.
 *
 * @example
 * idTail('s1'); // ',"id":"s1"}'
 */
export function idTail(id: string): string {
  return `,"id":${JSON.stringify(id)}}`;
}

/**
 * The text of a shared frame for subscription `id`.
 *
 * @example
 * withId(shared, 's1'); // '{"v":1,"type":"result",…,"id":"s1"}'
 */
export function withId(shared: SharedFrame, id: string): string {
  return shared.head + idTail(id);
}
