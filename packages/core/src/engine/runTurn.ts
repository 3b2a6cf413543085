import { readConflict } from '../adapter/conflicts.ts';
import { type Envelope, isActorSender } from '../adapter/envelope.ts';
import type { OverflowKey } from '../adapter/marks.ts';
import type { ActorRecord, Timer } from '../adapter/storedRecords.ts';
import type { HandlingTrace } from '../adapter/traceContext.ts';
import type { TurnDeadline } from '../contextSlots.ts';
import { type BatonError, isBatonError } from '../errors.ts';
import type { Admission, Turn } from './admission.ts';
import { admit, fired, knownByOutcome, redriven } from './admitMessage.ts';
import { countedAttempt } from './attempts.ts';
import type { BatchLimits } from './batchLimits.ts';
import { CommitBuilder } from './CommitBuilder.ts';
import type { MessageEffects } from './commitParts.ts';
import type { TurnEngine } from './createEngine.ts';
import { drainOutbox, type OutboxToDrain, outboxOf } from './drainOutbox.ts';
import { count, handle, NO_COUNTS, skips, type TurnCounts, tooOldToTell } from './handling.ts';
import type { Inbound } from './Inbound.ts';
import { reportReplacedQueue } from './inboxQueue.ts';
import { deadLetter } from './keptLetters.ts';
import { HANDLE_AGAIN, ignore } from './messageEffects.ts';
import { outcomeKeptApart } from './outcomeKeptApart.ts';
import { PagedLookup, withOutcomePages } from './outcomePages.ts';
import { OverflowLookup } from './overflow.ts';
import {
  actorPaused,
  isParkedCopy,
  park,
  parkedInbounds,
  resumedWithParked,
  withoutParked,
} from './parking.ts';
import { roomFirst, withFewerMoves } from './recordRoom.ts';
import { HALT_TIMER_REMOVALS } from './timers.ts';
import { turnCommits } from './turnCommits.ts';
import { commitTooLarge, keptAsDeadLetter } from './turnErrors.ts';
import { cached, checkFormat, load, withoutOutbox } from './turnRecord.ts';

export type { TurnCounts } from './handling.ts';

export interface TurnResult {
  /** Messages finished with: applied, rejected or skipped as duplicates. Ack them after drain. */
  readonly done: number;
  /**
   * The sends of the turn's last commit: drain them before acking (the sends of its earlier
   * commits were drained before the next one). Absent when that commit sent nothing, or the
   * turn committed nothing.
   */
  readonly undrained?: OutboxToDrain;
  /** How many messages the turn's commits sent. */
  readonly sent: number;
  /** The actor's record version when the turn ended: its last commit's, or the one it read. */
  readonly ver: number;
  /** The life of that record (`ActorRecord.life`). */
  readonly life: string | undefined;
  /** The timers the commits scheduled: what to arm. */
  readonly timers: readonly Timer[];
  /** Set when a retryable error stopped the batch at message `done`. */
  readonly retry?: BatonError;
  /** What became of the messages (parked ones applied on resume count too), for metrics. */
  readonly counts: TurnCounts;
}

export interface TurnOptions extends BatchLimits {
  /**
   * The record version, and its life, through which the caller drained the actor's outbox
   * itself (its last turn's commit, drained). A turn that reads another version — or the same
   * version of another life — drains that record's sends first, since its commit replaces the
   * record that holds them.
   */
  readonly drainedAt?: { readonly ver: number; readonly life: string | undefined };
}

/** Redo limit for version conflicts: each redo means another worker made progress. */
const MAX_ATTEMPTS = 16;

const NO_KEYS: ReadonlySet<string> = new Set();

/**
 * Runs one turn: applies a batch of one actor's inbox messages and commits the new record with
 * its outbox and idempotency records (DESIGN steps 1–4). Before a commit replaces a record, the
 * sends that record holds are in the queue: drained by the caller (`drainedAt`), by this turn
 * before its first commit, or by this turn between its commits. The last commit's sends are the
 * caller's to drain (`undrained`) before it acks.
 */
export async function runTurn(
  engine: TurnEngine,
  actorId: string,
  batch: readonly Inbound[],
  options: TurnOptions = {},
): Promise<TurnResult> {
  // Keys a redo found used: none, unless a commit met DUPLICATE.
  let duplicateKeys: Set<string> | undefined;
  const { drainedAt } = options;
  // One for the turn, whichever of its messages (and its redos) run steps against it.
  const deadline: TurnDeadline | undefined =
    options.deadline === undefined ? undefined : { at: options.deadline, steps: 0, longestMs: 0 };
  const drainedByCaller = (record: ActorRecord) =>
    drainedAt?.ver === record.ver && drainedAt.life === record.life;
  // An operator's redrive — or resume, which wakes the actor with one — may follow a change
  // made outside the actor's turns (a pause lifted) that a warm record does not show.
  const cold = batch.some(({ envelope }) => envelope.redrive !== undefined);
  for (let attempt = 1; ; attempt++) {
    const warm = cold ? undefined : cached(engine, actorId, attempt, drainedByCaller);
    const base = warm ?? (await load(engine, actorId));
    if (!warm && base.ver > 0) engine.cache.read(base);
    if (attempt === 1) reportReplacedQueue(engine, base, batch);
    try {
      checkFormat(base);
      // A record this caller did not drain may hold sends a crash left undrained; its
      // inbox messages may be this very batch, acked once the turn ends.
      const mine = drainedByCaller(base);
      const left = mine ? undefined : outboxOf(base);
      if (left) await drainOutbox(engine.store, engine.queue, left);
      const result = await applyBatch(engine, withoutOutbox(base), batch, {
        duplicateKeys: duplicateKeys ?? NO_KEYS,
        warm: warm !== undefined,
        maxReceives: options.maxReceives,
        deadline,
      });
      result.counts.versionConflicts = attempt - 1;
      const committed = result.ver !== base.ver;
      return committed || result.done === 0 ? result : await drainSince(engine, base, result);
    } catch (error) {
      const conflict = readConflict(error);
      if (!conflict || attempt >= MAX_ATTEMPTS) {
        engine.cache.delete(actorId);
        throw error;
      }
      if (conflict.kind === 'version') {
        engine.cache.stale(actorId, conflict.current);
      } else {
        duplicateKeys ??= new Set();
        for (const key of conflict.keys) duplicateKeys.add(key);
      }
      engine.logger.debug('turn redone after a conflict', { actor: actorId, kind: conflict.kind });
    }
  }
}

/**
 * A turn that committed nothing never checked its record against the store: the messages it
 * skipped as done may be those of a commit made since it read the record (or before, if the
 * record was warm), whose sends must be in the queue before those messages are acked.
 */
async function drainSince(
  engine: TurnEngine,
  base: ActorRecord,
  result: TurnResult,
): Promise<TurnResult> {
  const stored = await engine.store.load(base.id);
  if (!stored || (stored.ver === base.ver && stored.life === base.life)) return result;
  checkFormat(stored);
  engine.cache.set(stored);
  const left = outboxOf(stored);
  if (left) await drainOutbox(engine.store, engine.queue, left);
  return { ...result, ver: stored.ver, life: stored.life };
}

/**
 * A commit that closes the outcome page a message's first copy may be in leaves the message
 * (admitted as new) to the next commit, written to a new page whose condition cannot see it:
 * whether it is in the page `record`'s commits closed since `page` was the open one.
 */
async function inClosedPage(
  pages: PagedLookup,
  record: ActorRecord,
  envelope: Envelope,
  page: number | undefined,
): Promise<boolean> {
  return (
    knownByOutcome(envelope) &&
    record.outcomePage?.page !== page &&
    (await pages.applied(record, envelope.id, envelope.sentAt))
  );
}

async function applyBatch(
  engine: TurnEngine,
  loaded: ActorRecord,
  batch: readonly Inbound[],
  {
    duplicateKeys,
    warm,
    maxReceives,
    deadline,
  }: {
    duplicateKeys: ReadonlySet<string>;
    warm: boolean;
    maxReceives: number | undefined;
    deadline: TurnDeadline | undefined;
  },
): Promise<TurnResult> {
  // A resumed actor applies the messages parked while it was paused first, in order.
  const replays = resumedWithParked(loaded) ? await parkedInbounds(engine, loaded, batch[0]) : [];
  const unparked = loaded.paused || replays.length > 0 ? loaded : withoutParked(loaded);
  const now = engine.clock.now();
  const { limits } = engine.store;
  const base = withOutcomePages(engine.store, unparked, now);
  const builder = new CommitBuilder(base, limits, {
    pagedOutcomes: base.outcomePage !== undefined,
  });
  const pages = new PagedLookup(engine, base.id, batch);
  const overflow = new OverflowLookup(engine.store, base, now, engine.markRetentionMs);
  // One shape for every turn (no conditional spread): the handling code reads it on each step.
  const turn: Turn = { engine, overflow, builder, warm, maxReceives, deadline };
  // The batch's senders the record does not list, read in one call rather than one each.
  const senders: OverflowKey[] = [];
  for (const { envelope } of batch) {
    if (isActorSender(envelope)) senders.push({ kind: 'sender', peer: envelope.from });
  }
  if (senders.length > 0) await overflow.load(base, senders);
  const commits = turnCommits(engine, builder, base);
  const { commit } = commits;
  let done = 0;
  let retry: BatonError | undefined;
  const counts: TurnCounts = { ...NO_COUNTS };

  /** Ingress messages whose outcome the turn keeps apart (see outcomeKeptApart.ts). */
  const keptApart = new Set<string>();
  /** A message skipped as a copy: one found in a closed page has its outcome kept apart. */
  const skip = async ({ id, sentAt }: Envelope) => {
    done++;
    counts.skipped++;
    if (!pages.inClosedPage(id) || keptApart.has(id)) return;
    keptApart.add(id);
    const outcome = await outcomeKeptApart(engine.store, builder.record, id, sentAt);
    if (!outcome) return;
    if (!builder.fitsKeptApart(outcome)) await commit();
    builder.keepApart(outcome);
  };

  // The ids of the messages known by id that the turn took: a batch holds ten at most.
  const seenIds: string[] = [];
  // The parked messages of a resumed actor first (they count in no batch), then the batch.
  const steps = [...replays, ...batch.map((received) => ({ received }))];
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i]!;
    const replay = 'letter' in step ? step : undefined;
    const received = 'letter' in step ? step.inbound : step.received;
    // A queue may hand over two copies of an ingress message or of a redrive (SQS is
    // at-least-once); neither has a channel mark, so a second copy is known by its id.
    const { envelope } = received;
    const byId = !isActorSender(envelope) || envelope.redrive !== undefined;
    const copy = byId && seenIds.includes(envelope.id);
    const admission: Admission | undefined = replay
      ? await redriven(turn, replay.letter)
      : copy
        ? undefined
        : await admit(turn, received, duplicateKeys, pages);
    if (
      !admission ||
      (builder.record.paused && (await isParkedCopy(engine, builder.record, received)))
    ) {
      await skip(envelope);
      continue;
    }
    if (byId) seenIds.push(envelope.id);
    // A redrive carries the message as the handler saw it when it was dead-lettered.
    const inbound =
      admission.fires && !admission.redrives ? fired(received, admission.fires) : received;
    let effects: MessageEffects | BatonError | undefined;
    let trace: HandlingTrace | undefined;
    if (skips(admission)) {
      effects = ignore(engine, builder.record, inbound, admission);
    } else if (
      builder.record.paused &&
      !tooOldToTell(engine, inbound.envelope, admission, engine.clock.now())
    ) {
      // A message too large to park whole waits in the inbox until the actor is resumed. One too
      // old to tell (see tooOldToTell) is kept as a dead letter at once: a parked one is applied.
      effects = park(engine, builder.record, inbound, admission) ?? actorPaused(builder.record);
    } else {
      let handled = await handle(turn, builder.record, inbound, admission);
      if (handled.effects === HANDLE_AGAIN) {
        // A workflow step is due on the batch's earlier messages, uncommitted (see COMMIT_FIRST
        // in contextSlots.ts): they commit, and the message is handled again on that record.
        const page = builder.record.outcomePage?.page;
        await commit();
        if (!replay && (await inClosedPage(pages, builder.record, envelope, page))) {
          await skip(envelope);
          continue;
        }
        handled = await handle(turn, builder.record, inbound, admission);
      }
      const result = handled.effects;
      if (result === HANDLE_AGAIN) {
        throw new Error('a handling asked to commit first with nothing left to commit');
      }
      effects = result;
      trace = handled.trace;
      // Its handler failed, to be retried: the record counts the attempt, with the handler and
      // the error when they fit (see attempts.ts).
      const counted = isBatonError(effects)
        ? countedAttempt(engine, builder.record, inbound, effects)
        : undefined;
      if (counted) {
        const attempt = { record: counted, envelopes: [], idempotency: undefined };
        if (builder.fits(attempt)) builder.add(attempt);
      }
    }
    if (isBatonError(effects)) {
      retry = effects;
      break;
    }
    if (!builder.fits(effects)) {
      const page = builder.record.outcomePage?.page;
      if (builder.size > 0) await commit();
      // A halt (its epoch counted up) in a commit of its own: see HALT_TIMER_REMOVALS.
      if (effects.record.timerEpoch !== builder.record.timerEpoch) {
        effects = {
          ...effects,
          timers: new Map([...effects.timers!].slice(0, HALT_TIMER_REMOVALS + 1)),
        };
      }
      // Its outcome does not fit beside the entries of the open page, but fits a page of its
      // own: close the page in a commit of its own.
      if (builder.outgrowsPage(effects)) {
        builder.closePage();
        await commit();
        counts.roomCommits++;
      }
      if (!replay && (await inClosedPage(pages, builder.record, envelope, page))) {
        await skip(envelope);
        continue;
      }
      if (!builder.fits(effects)) effects = withFewerMoves(engine, effects);
      // The marks it must move out (or the pages it puts) crowd its commit: move some out in
      // commits of their own.
      const maxRoomMoves = limits.maxTransactionItems - 1;
      const fitsWithoutPages = (rest: MessageEffects) => builder.fits(rest);
      while (!builder.fits(effects)) {
        const room = roomFirst(engine, builder.record, effects, maxRoomMoves, fitsWithoutPages);
        if (!room) break;
        builder.add(room.room);
        overflow.moved(room.room.overflow ?? []);
        await commit();
        counts.roomCommits++;
        effects = room.effects;
      }
      if (!builder.fits(effects)) {
        // Kept as a dead letter, not rejected: nothing but a code change makes it fit, and a
        // message from another actor has no one to hear a rejection (a transfer's money). Its
        // sender is told DEAD_LETTERED, as a redrive may apply it once the fix is deployed.
        const error = commitTooLarge(inbound.envelope, limits);
        const kept = await deadLetter(
          turn,
          builder.record,
          inbound,
          admission,
          error,
          trace,
          keptAsDeadLetter(inbound.envelope, error),
        );
        effects = withFewerMoves(engine, kept);
      }
    }
    // The last parked message applied: the record counts none any more (its size unmeasured).
    if (replay && i === replays.length - 1) {
      effects = { ...effects, record: withoutParked(effects.record), recordBytes: undefined };
    }
    builder.add(effects);
    overflow.moved(effects.overflow ?? []);
    count(counts, effects, admission);
    if (!replay) done++;
  }
  if (builder.size > 0) await commit();
  return { done, ...commits.made(), ...(retry && { retry }), counts };
}
