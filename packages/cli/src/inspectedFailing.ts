/**
 * What holds an actor, as `baton actors get` and both inspectors (`baton dev`'s and `baton
 * inspect`) give it: the message failing at the head of its inbox (`ActorRecord.failing`),
 * which its later messages wait behind until it is applied or dead-lettered. One shape for all
 * three, so a script reads `failingMessage` of one as `failing` of the others — but for its
 * times, which `actors get --json` and `baton inspect` give as ISO strings ({@link failingJson}),
 * as every time of the operating commands, and `baton dev`'s inspector as epoch ms, as every
 * time of its page.
 */
import type { FailingMessage } from '@baton/core/adapter';
import { duration, isoTime } from './ops/format.ts';

/** An actor's failing message (`failingMessage` of `baton actors get --json`). */
export interface InspectedFailing {
  readonly messageId: string;
  /** Its place in the actor's inbox. */
  readonly inboxPosition: string;
  /** The times its handler failed. */
  readonly attempts: number;
  /**
   * When its first attempt failed (epoch ms): the actor has been stuck on it since. Null on a
   * record written before workers kept it.
   */
  readonly since: number | null;
  /** The handler that failed; null when the record does not name it. */
  readonly handler: string | null;
  /** Its last error, as the worker clipped it; null when the record does not keep it. */
  readonly error: { readonly code: string; readonly message: string } | null;
  /**
   * When and by whom an operator ended it (`baton actors end-failing`): its next delivery keeps
   * it as a dead letter without running its handler. Null while it is retried.
   */
  readonly ended: { readonly at: number; readonly by: string } | null;
}

/**
 * The failing message of a record, or null when none is failing. A record written before the
 * time, handler and error were kept, or with no room for the error, has null for them: the
 * worker's log has the error (`message will be retried`, by message id).
 */
export function inspectFailing(failing: FailingMessage | undefined): InspectedFailing | null {
  if (!failing) return null;
  const { since, handler, error, ended } = failing;
  return {
    messageId: failing.id,
    inboxPosition: failing.at,
    attempts: failing.attempts,
    since: since ?? null,
    handler: handler ?? null,
    error: error ? { code: error.code, message: error.message } : null,
    ended: ended ? { at: ended.at, by: ended.by } : null,
  };
}

/**
 * {@link InspectedFailing} as the CLI's `--json` gives it (`actors get`'s `failingMessage`,
 * `backlog`'s `failing`): its times are ISO 8601 strings, as every time the CLI prints.
 */
export type FailingJson = Omit<InspectedFailing, 'since' | 'ended'> & {
  readonly since: string | null;
  readonly ended: { readonly at: string; readonly by: string } | null;
};

/**
 * The failing message of a record as the CLI's `--json` gives it ({@link FailingJson}), or null
 * when none is failing.
 */
export function failingJson(failing: FailingMessage | undefined): FailingJson | null {
  const inspected = inspectFailing(failing);
  if (!inspected) return null;
  const { since, ended } = inspected;
  return {
    ...inspected,
    since: since === null ? null : isoTime(since),
    ended: ended ? { at: isoTime(ended.at), by: ended.by } : null,
  };
}

/**
 * How long a message has failed, at `now`: `failing for 3h 12m`, or `age unknown` on a record
 * written before its first failure's time was kept. `since` is epoch ms, or an ISO time as
 * {@link failingJson} gives it.
 */
export const failingFor = (since: number | string | null | undefined, now: number): string =>
  since == null
    ? 'age unknown'
    : `failing for ${duration(now - (typeof since === 'string' ? Date.parse(since) : since))}`;

/** A failing message's error in one line (`CODE: message`), however many lines its message has. */
export const errorLine = (error: { readonly code: string; readonly message: string }): string =>
  `${error.code}: ${error.message.replace(/\s+/g, ' ')}`;
