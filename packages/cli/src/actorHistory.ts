/**
 * An actor's recent history as the store keeps it, for both inspectors (`baton dev`'s and
 * `baton inspect`): the outcomes of its ingress messages (its outcome pages), its dead letters
 * and parked messages, the timers it set and the sends it holds. Nothing is kept in memory, so a
 * restart of the inspector, the app or a worker loses none of it; what the store forgets (an
 * outcome past the retention window, a fired timer, a drained send) leaves the history too.
 */
import { ErrorCode } from '@baton/core';
import {
  type ActorRecord,
  type DeadLetter,
  heldAtPause,
  type PagedOutcome,
  type Store,
  type Timer,
} from '@baton/core/adapter';
import { causeOf } from './ops/deadLetterCauses.ts';

/** How many entries a history holds unless told otherwise: the newest. */
export const HISTORY_LIMIT = 50;

/** One thing that happened to an actor, as the inspectors list it. */
export interface HistoryEntry {
  /** When: a message's sentAt, a dead letter's time, a timer's scheduling. */
  readonly at: number;
  readonly kind: 'outcome' | 'dead letter' | 'parked' | 'timer set' | 'sent';
  /** The message: its name, or for an outcome (which keeps no name) its idempotency key. */
  readonly message: string;
  /** What became of it, in a line: `ok 5`, `REJECTED: …`, `due …`, `to account/bob`. */
  readonly result: string;
  /** False for a failure (a rejected outcome, a dead letter). */
  readonly ok: boolean;
  /** The message (or timer) id, when it has one. */
  readonly id?: string;
}

/** What a history is made of, as the store reads it. */
export interface HistorySources {
  readonly outcomes: readonly PagedOutcome[];
  readonly deadLetters: readonly DeadLetter[];
  readonly timers: readonly Timer[];
  /** The sends the actor committed and holds, drained or not. */
  readonly sends: readonly HeldSend[];
}

/**
 * A send an actor committed and holds until its next commit or a sweep retires it, drained into
 * its receiver's inbox or not.
 */
export interface HeldSend {
  readonly to: string;
  readonly name: string;
  readonly sentAt: number;
  /** Whether its receiver has it (applied, parked or dead-lettered); absent or null: not read. */
  readonly delivered?: boolean | null;
}

/** The newest `limit` entries of `sources`, newest first. */
export function actorHistory(sources: HistorySources, limit = HISTORY_LIMIT): HistoryEntry[] {
  const entries: HistoryEntry[] = [
    // A message parked at a pause shows as parked (its letter), not by the outcome held for it.
    ...sources.outcomes
      .filter((o) => !heldAtPause(o))
      .map(
        (o): HistoryEntry => ({
          at: o.sentAt,
          kind: 'outcome',
          message: clientKey(o.key),
          result: o.outcome.ok
            ? `ok ${JSON.stringify(o.outcome.value ?? null)}`
            : `${o.outcome.error.code}: ${o.outcome.error.message}`,
          ok: o.outcome.ok,
          id: o.key,
        }),
      ),
    ...sources.deadLetters.map((l): HistoryEntry => {
      // The engine's DEAD_LETTERED error carries the handler's as its cause, and that its own.
      const cause = causeOf(l);
      return {
        at: l.at,
        kind: l.parked === undefined ? 'dead letter' : 'parked',
        message: l.envelope.name,
        result:
          l.parked === undefined
            ? `${cause.code}: ${cause.message} (after ${l.attempts} attempt(s))`
            : `waits as #${l.parked} until the actor is resumed`,
        ok: l.parked !== undefined,
        id: l.messageId,
      };
    }),
    ...sources.timers.map(
      (t): HistoryEntry => ({
        at: t.createdAt,
        kind: 'timer set',
        message: t.name,
        result: `due ${new Date(t.at).toISOString()}`,
        ok: true,
        id: t.id,
      }),
    ),
    ...sources.sends.map(
      (s): HistoryEntry => ({
        at: s.sentAt,
        kind: 'sent',
        message: s.name,
        result: `to ${s.to}, ${heldSendState(s.delivered)}`,
        ok: true,
      }),
    ),
  ];
  return entries.sort((a, b) => b.at - a.at).slice(0, limit);
}

/** Where a held send is, as far as its receiver's marks were read. */
function heldSendState(delivered: boolean | null | undefined): string {
  if (delivered === true) return 'delivered (a sweep retires it)';
  return delivered === false ? 'not delivered yet' : 'held until retired (drained or not)';
}

/**
 * The live outcomes of the actor's newest outcome pages: the current one and the one closed
 * last (every page whose latest `sentAt` is at least the closed pages' latest), enough for a
 * bounded history without reading every page of the retention window. None on a store that
 * keeps no pages. A dead-lettered message's outcome is read again by its key: a redrive keeps
 * its new outcome apart from the page, which still holds DEAD_LETTERED (as a resume does that
 * of a message parked at a pause, whose page holds ACTOR_PAUSED).
 */
export async function recentOutcomes(store: Store, record: ActorRecord): Promise<PagedOutcome[]> {
  if (!store.readPagedOutcomes || !record.outcomePage) return [];
  const paged = await store.readPagedOutcomes(record.id, record.outcomePage.closedSentAt ?? 0);
  return Promise.all(
    paged.map(async (o) => {
      // Or held at a pause (ACTOR_PAUSED): the resume keeps the outcome apart as a redrive does.
      if (o.outcome.ok || (o.outcome.error.code !== ErrorCode.DEAD_LETTERED && !heldAtPause(o))) {
        return o;
      }
      const current = await store.readIdempotency(o.key, o.sentAt);
      return current ? { ...current, sentAt: o.sentAt } : o;
    }),
  );
}

/** The history of `record`'s actor, read from `store`. */
export async function readActorHistory(
  store: Store,
  record: ActorRecord,
  limit = HISTORY_LIMIT,
): Promise<HistoryEntry[]> {
  const [outcomes, deadLetters, timers, apart] = await Promise.all([
    recentOutcomes(store, record),
    store.listDeadLetters(record.id),
    store.listTimers(record.id),
    store.readOutbox(record.id),
  ]);
  const sends = [...(record.outbox ?? []), ...apart].flatMap((item) => item.envelopes);
  return actorHistory({ outcomes, deadLetters, timers, sends }, limit);
}

/** The client's idempotency key in an ingress id (`ingress:["to","key",…]`), else the id. */
function clientKey(id: string): string {
  if (!id.startsWith('ingress:')) return id;
  try {
    const scope: unknown = JSON.parse(id.slice('ingress:'.length));
    if (Array.isArray(scope) && typeof scope[1] === 'string') return scope[1];
  } catch {}
  return id;
}
