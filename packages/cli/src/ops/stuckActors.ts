/**
 * `baton status`'s word on the actors stuck on a message failing at the head of their inbox
 * (`ActorRecord.failing`): their later messages wait behind it, and only their records say so.
 * The scan that finds paused actors finds them too.
 */
import type { HeldActors } from '@baton/aws';
import { failingFor } from '../inspectedFailing.ts';
import { duration, isoTime } from './format.ts';
import type { FollowUp } from './target.ts';

/** The actors stuck on a failing message, and the one stuck longest. */
export interface StuckActors {
  /** How many the scan came upon (at least this many when it stopped at its bound). */
  readonly actors: number;
  /**
   * The actor whose message has failed longest (one failing since an unknown time, counted by
   * an older Baton, before those with a time), or null when none is failing.
   */
  readonly longest: {
    readonly id: string;
    readonly messageId: string;
    readonly attempts: number;
    /** When its first attempt failed (an ISO time); null on a record an older Baton counted. */
    readonly since: string | null;
    /** Whether an operator ended it: its next delivery keeps it as a dead letter. */
    readonly ended: boolean;
  } | null;
}

/** What `found` says of stuck actors. */
export function stuckActors(found: HeldActors['failing']): StuckActors {
  const oldest = [...found].sort(
    (a, b) => (a.failing.since ?? 0) - (b.failing.since ?? 0) || (a.id < b.id ? -1 : 1),
  )[0];
  return {
    actors: found.length,
    longest: oldest
      ? {
          id: oldest.id,
          messageId: oldest.failing.id,
          attempts: oldest.failing.attempts,
          since: oldest.failing.since === undefined ? null : isoTime(oldest.failing.since),
          ended: oldest.failing.ended !== undefined,
        }
      : null,
  };
}

/**
 * The health problem of actors stuck on a failing message longer than `afterMs` (or since a
 * time not kept), naming the longest and the commands to look at and end it; else undefined:
 * a message that failed a moment ago is retried, and is no incident yet.
 */
export function stuckProblem(
  stuck: StuckActors,
  now: number,
  afterMs: number,
  follow: FollowUp,
): string | undefined {
  const { longest } = stuck;
  if (!longest || (longest.since !== null && now - Date.parse(longest.since) <= afterMs)) {
    return undefined;
  }
  const { id, messageId, attempts } = longest;
  const next = longest.ended
    ? 'an operator ended it: its next delivery keeps it as a dead letter'
    : `to end it now, without running its handler again: ${follow`actors end-failing ${id} ${messageId}`}`;
  return `${stuck.actors} actor(s) stuck on a failing message, the longest ${id} (message ${messageId}, ${failingFor(longest.since, now)}, ${attempts} attempt(s)): its later messages wait until it is applied or dead-lettered; ${follow`actors get ${id}`} shows its error, ${follow`backlog`} lists the others; ${next} (see InboxAgeAlarm in docs/operations.md)`;
}

/**
 * What `status` says beside its OK of actors failing their head message for `afterMs` at most,
 * which it does not count as stuck yet: the longest, and when it would. Empty when none fails.
 */
export function failingLine(
  stuck: StuckActors,
  now: number,
  afterMs: number,
  follow: FollowUp,
): string[] {
  const { longest } = stuck;
  if (!longest) return [];
  return [
    `${stuck.actors} actor(s) failing a message, retried: the longest ${longest.id} (${failingFor(longest.since, now)}, ${longest.attempts} attempt(s)); ATTENTION if one still fails after ${duration(afterMs)} (${follow`actors get ${longest.id}`} shows its error)`,
  ];
}

/** `status`'s line of stuck actors: how many (at least, if the scan was not `complete`), and the longest. */
export function stuckLine(stuck: StuckActors, now: number, complete: boolean): string {
  const { longest } = stuck;
  const count = `${complete ? '' : 'at least '}${stuck.actors} actor(s)`;
  if (!longest) return complete ? 'none' : `${count} (the scan stopped short)`;
  const ended = longest.ended ? ', ended by an operator' : '';
  return `${count}, the longest ${longest.id} (${failingFor(longest.since, now)}, ${longest.attempts} attempt(s)${ended})`;
}
