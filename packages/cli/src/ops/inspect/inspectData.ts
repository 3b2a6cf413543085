/**
 * What `baton inspect` shows, read from the deployment's table and queues on every request: it
 * keeps nothing in memory, so what it shows outlives a worker's (or its own) restart.
 */
import { listActors } from '@baton/aws';
import { BatonError, ErrorCode, type WorkflowState } from '@baton/core';
import { askTimerId, type DeadLetter, effectOf, parseActorId } from '@baton/core/adapter';
import {
  answeredSender,
  keptTooOldToTell,
  keyClaimLapsed,
  readHistoryWindow,
  storedOutbox,
} from '@baton/core/engine';
import {
  actorHistory,
  type HeldSend,
  type HistoryEntry,
  recentOutcomes,
} from '../../actorHistory.ts';
import { type FailingJson, failingJson } from '../../inspectedFailing.ts';
import { actorSummaries } from '../actorSummaries.ts';
import { pauseJson } from '../actors.ts';
import { causeOf } from '../deadLetterCauses.ts';
import { isoTime } from '../format.ts';
import { type TrailSummary, trailProse, trailSummary, trailsIn } from '../letterTrails.ts';
import type { StatusReport } from '../StatusReport.ts';
import { readStatus } from '../status.ts';
import type { FollowUp, Target } from '../target.ts';
import { deliveredByMarks } from '../unappliedSends.ts';

/**
 * The front page: `baton status`'s health (its `paused` lists the paused actors), and every
 * dead letter.
 */
export interface Overview {
  readonly status: StatusReport;
  readonly deadLetters: readonly InspectedLetter[];
}

/** A dead letter, or a message parked for a paused actor, as the pages show it. */
export interface InspectedLetter {
  readonly actorId: string;
  readonly messageId: string;
  readonly name: string;
  readonly from: string;
  readonly payload: unknown;
  readonly code: string;
  readonly error: string;
  readonly attempts: number;
  readonly at: number;
  readonly redrivable: boolean;
  /**
   * Who was answered DEAD_LETTERED when it was kept (`answeredSender`): a redrive of it needs
   * force. Absent when nobody was.
   */
  readonly answered?: string;
  /**
   * Set when it was kept as too old to tell whether it was applied (`keptTooOldToTell`), and
   * nobody was answered: it may have been applied already, so a redrive of it needs force, for
   * an operator who knows it never was.
   */
  readonly tooOldToTell?: true;
  /**
   * Set on the letter of an ask's reply: purged, the ask's timeout, held with it, is left to
   * fire, and the asker's continuation runs once, with ASK_TIMEOUT.
   */
  readonly askReply?: true;
  /** Its place among a paused actor's parked messages; absent for a dead letter. */
  readonly parked?: number;
  /**
   * What operators did to a dead letter's message (letterTrails.ts): who ended it and when, how
   * often it was redriven, the last redrive's time, operator and result, as `baton dead-letters
   * list --json` gives them; `lines`, as `dead-letters show` says them. Absent for a parked
   * message, and for a letter no operator ended nor redrove.
   */
  readonly trail?: TrailSummary & { readonly lines: readonly string[] };
}

/** One actor, whole: its record, what waits in its inbox, what it holds, and its history. */
export interface InspectedActor {
  readonly id: string;
  readonly version: number;
  readonly stateVersion: number;
  readonly inboxPosition: string;
  /** Who paused it, and when (an ISO time), as `baton actors get --json` gives it. */
  readonly paused: { readonly at: string; readonly by: string } | null;
  /**
   * The message failing at the head of its inbox, which its later messages wait behind (as
   * `baton actors get --json` gives it, its times ISO); null when none is failing.
   */
  readonly failing: FailingJson | null;
  readonly state: unknown;
  /** Messages held while it is paused, in the order it applies them when resumed. */
  readonly inbox: readonly InspectedLetter[];
  readonly deadLetters: readonly InspectedLetter[];
  /**
   * Sends it committed and keeps until its next commit or a sweep, drained or not; `delivered`
   * says whether the target has one (null: an effect's, or not read).
   */
  readonly heldSends: readonly HeldSend[];
  readonly timers: readonly {
    readonly id: string;
    readonly kind: 'timer' | 'ask timeout';
    /** Kept for its dead-lettered fire: never due, applied only by the dead letter's redrive. */
    readonly deadLettered: boolean;
    readonly name: string;
    readonly at: number;
    readonly payload: unknown;
  }[];
  /** A workflow instance's steps: its newest 500, from its record and its history's pages. */
  readonly steps: readonly unknown[] | null;
  /**
   * What happened to it lately, newest first, as the table keeps it (ingress outcomes, dead
   * letters, parked messages, timers set, sends held): it survives any restart.
   */
  readonly history: readonly HistoryEntry[];
}

export async function readOverview(
  target: Target,
  now: number,
  followUp: FollowUp,
): Promise<Overview> {
  const [status, letters] = await Promise.all([
    readStatus(target, now, followUp),
    target.indexReader.listDeadLetters(),
  ]);
  const kept = letters.filter((l) => l.parked === undefined).sort((a, b) => a.at - b.at);
  return { status, deadLetters: await inspectLetters(target, kept, now) };
}

/**
 * The actors whose id starts with `prefix` (`type/` and the start of a key: `account/al`), a
 * page at a time. A prefix with no `/` is a type.
 */
export async function searchActors(
  target: Target,
  prefix: string,
  options: { limit?: number; cursor?: string } = {},
) {
  const slash = prefix.indexOf('/');
  const type = slash < 0 ? prefix : prefix.slice(0, slash);
  if (type === '') {
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      'search by an actor type, or a type and the start of a key: account, account/al',
    );
  }
  const page = await listActors(target.dynamodb, target.names.table, type, {
    limit: options.limit ?? 50,
    ...(options.cursor ? { cursor: options.cursor } : {}),
    ...(slash < 0 ? {} : { keyPrefix: prefix.slice(slash + 1) }),
  });
  return actorSummaries(page);
}

export async function readActor(
  target: Target,
  id: string,
  now: number = Date.now(),
): Promise<InspectedActor> {
  if (!parseActorId(id)) {
    throw new BatonError(ErrorCode.INVALID_ARGUMENT, `"${id}" is not an actor id: <type>/<key>`);
  }
  const { store } = target;
  const record = await store.load(id);
  if (!record) throw new BatonError(ErrorCode.NOT_FOUND, `${id} has no record`);
  const [timers, letters, held, outcomes] = await Promise.all([
    store.listTimers(id),
    store.listDeadLetters(id),
    storedOutbox(store, id),
    recentOutcomes(store, record),
  ]);
  const sends = held.flatMap((item) => item.envelopes);
  const { delivered } = await deliveredByMarks(
    store,
    sends.filter((e) => effectOf(e.to) === undefined),
  );
  const heldSends = sends.map((e) => ({
    to: e.to,
    name: e.name,
    sentAt: e.sentAt,
    delivered: effectOf(e.to) === undefined ? (delivered(e) ?? null) : null,
  }));
  const journal = (record.state as { journal?: unknown } | null)?.journal;
  // A workflow's newest steps, from the pages of a long history too.
  const steps =
    id.startsWith('wf-') && Array.isArray(journal)
      ? (await readHistoryWindow(store, id, record.state as WorkflowState)).entries
      : null;
  return {
    id,
    version: record.ver,
    stateVersion: record.stateVersion ?? 1,
    inboxPosition: record.inboxOffset,
    paused: pauseJson(record.paused),
    failing: failingJson(record.failing),
    state: record.state,
    inbox: letters
      .filter((l) => l.parked !== undefined)
      .sort((a, b) => a.parked! - b.parked!)
      .map(inspectLetter),
    deadLetters: await inspectLetters(
      target,
      letters.filter((l) => l.parked === undefined),
      now,
    ),
    heldSends,
    timers: timers
      .sort((a, b) => a.at - b.at)
      .map((t) => ({
        id: t.id,
        kind: t.id.startsWith('ask:') ? ('ask timeout' as const) : ('timer' as const),
        deadLettered: t.deadLettered === true,
        name: t.name,
        at: t.at,
        payload: t.payload ?? null,
      })),
    steps,
    history: actorHistory({ outcomes, deadLetters: letters, timers, sends: heldSends }),
  };
}

/** Dead letters as the pages show them, each with its trail, if an operator acted on it. */
async function inspectLetters(
  target: Target,
  letters: readonly DeadLetter[],
  now: number,
): Promise<InspectedLetter[]> {
  const trails = await trailsIn(target, letters);
  return letters.map((l) => {
    const trail = trails.get(l);
    if (!trail) return inspectLetter(l, now);
    const summary = trailSummary(l, trail);
    const lines = trailProse(summary, l.actorId, isoTime(l.at), now);
    return { ...inspectLetter(l, now), trail: { ...summary, lines } };
  });
}

function inspectLetter(l: DeadLetter, now: number): InspectedLetter {
  const cause = causeOf(l);
  const answered = l.parked === undefined ? answeredSender(l) : undefined;
  const tooOld =
    l.parked === undefined &&
    answered === undefined &&
    (keptTooOldToTell(l) || keyClaimLapsed(l, now));
  const askReply =
    l.parked === undefined &&
    l.envelope.replyTo !== undefined &&
    l.timer?.id === askTimerId(l.envelope.replyTo);
  return {
    actorId: l.actorId,
    messageId: l.messageId,
    name: l.envelope.name,
    from: l.envelope.from,
    payload: l.envelope.payload ?? null,
    code: cause.code,
    error: cause.message,
    attempts: l.attempts,
    at: l.at,
    redrivable: l.redrivable,
    ...(answered === undefined ? {} : { answered }),
    ...(tooOld ? { tooOldToTell: true as const } : {}),
    ...(askReply ? { askReply: true as const } : {}),
    ...(l.parked === undefined ? {} : { parked: l.parked }),
  };
}
