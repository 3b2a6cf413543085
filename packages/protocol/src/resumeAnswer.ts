import { diff } from './diff.ts';
import type { JsonValue } from './JsonPatchOp.ts';
import { PROTOCOL_VERSION } from './messages.ts';
import type { PatchMessage, ResultMessage, UnchangedMessage } from './serverMessages.ts';

/** What a resuming client holds: a subscribe frame's `resume`, by version and hash. */
export interface ResumeState {
  readonly lastVersion: number;
  readonly hash: string;
}

/** A query instance's value at a version. `hash` must identify the value (a content hash). */
export interface VersionedValue {
  readonly version: number;
  readonly hash: string;
  readonly value: JsonValue;
}

/** The value the server held before the current one; `hash`, when given, is checked too. */
export interface PreviousValue {
  readonly version: number;
  readonly value: JsonValue;
  readonly hash?: string;
}

type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;

/** The answer to a resume, a server frame without its subscription `id`. */
export type ResumeAnswer = WithoutId<UnchangedMessage | PatchMessage | ResultMessage>;

/**
 * Chooses the cheapest correct answer to a client resuming a subscription:
 * - `unchanged` when the client's hash is the current one (it holds the current value, even if
 *   the version moved, e.g. after a server restart);
 * - `patch` when the client holds exactly `previous` (same version, and same hash if given) and
 *   the patch encodes smaller than the value;
 * - `result` (the full value) otherwise.
 * Add the subscription id to send it. The same rule answers an ack'ed live push.
 *
 * @example
 * const answer = resumeAnswer(
 *   { lastVersion: message.resume.version, hash: message.resume.hash },
 *   { version: 9, hash: 'c3d4', value: { balance: 35 } },
 *   { version: 8, value: { balance: 30 } },
 * );
 * socket.send(encodeMessage({ ...answer, id: message.id }));
 * // { v: 1, type: 'patch', id: 's1', version: 9, hash: 'c3d4', baseVersion: 8,
 * //   ops: [{ op: 'replace', path: '/balance', value: 35 }] }
 */
export function resumeAnswer(
  client: ResumeState,
  current: VersionedValue,
  previous?: PreviousValue,
): ResumeAnswer {
  const { version, hash, value } = current;
  if (client.hash === hash) return { v: PROTOCOL_VERSION, type: 'unchanged', version, hash };
  if (
    previous !== undefined &&
    client.lastVersion === previous.version &&
    (previous.hash === undefined || previous.hash === client.hash)
  ) {
    const ops = diff(previous.value, value);
    if (JSON.stringify(ops).length < JSON.stringify(value).length) {
      return {
        v: PROTOCOL_VERSION,
        type: 'patch',
        version,
        hash,
        baseVersion: previous.version,
        ops,
      };
    }
  }
  return { v: PROTOCOL_VERSION, type: 'result', version, hash, value };
}
