/**
 * Where a turn's record comes from: the worker's warm copy when it can be trusted, else the
 * store's, else the first record of a new life — and the format this Baton can write over.
 */
import { parseActorId } from '../adapter/envelope.ts';
import { type ActorRecord, RECORD_FORMAT } from '../adapter/storedRecords.ts';
import { RetryableError } from '../errors.ts';
import { NO_STATE_VERSION } from '../stateVersions.ts';
import type { TurnEngine } from './createEngine.ts';

/**
 * Refuses a record a newer Baton wrote: this code would write it back without what it does not
 * understand, or drain its sends by rules it does not know. The messages wait, redelivered (a
 * sweep, retried), until the newer Baton runs here too.
 */
export function checkFormat(record: ActorRecord): void {
  const format = record.format ?? 1;
  if (format <= RECORD_FORMAT) return;
  throw new RetryableError(
    `the record of ${record.id} has format ${format}, a newer Baton's (this one writes format ` +
      `${RECORD_FORMAT}): upgrade Baton in every worker and sweeper; its messages and sends ` +
      'wait meanwhile',
    { details: { actorId: record.id, format, supported: RECORD_FORMAT } },
  );
}

/**
 * The warm record of `actorId`, unless it belongs to a halted actor past its expiry (its store
 * may have deleted it, and a new life begun), or its head message is failing (an operator may
 * have ended it since: see `endFailingMessage`), or it holds sends older than half the mark
 * retention: the turn drains a record's held sends before it commits over it, and sends that
 * old, taken from a warm record another worker replaced long ago (or of a life since ended),
 * may reach receivers that have forgotten them. Nor, on a first attempt, when its commit put
 * sends in items apart that the caller did not drain: the turn reads them from the store, to
 * drain as the record's, and a warm record may be of a life that ended since, whose items would
 * go out as the live life's. The store's record is read instead. A turn's first attempt reads it
 * too when other workers commit for the actor (`RecordCache.trusted`); a redo takes the record
 * its conflict returned, the store's.
 */
export function cached(
  engine: TurnEngine,
  actorId: string,
  attempt: number,
  drainedByCaller: (record: ActorRecord) => boolean,
): ActorRecord | undefined {
  const record = attempt === 1 ? engine.cache.trusted(actorId) : engine.cache.get(actorId);
  const now = engine.clock.now();
  if (record?.failing || (record?.expiresAt ?? now + 1) <= now) return undefined;
  const stale = now - engine.markRetentionMs / 2;
  if (record?.outbox?.some((item) => item.createdAt < stale)) return undefined;
  if (attempt === 1 && record?.outboxApart && !drainedByCaller(record)) return undefined;
  return record;
}

/**
 * The actor's record as the store holds it, or the first record of a new life: a new life id,
 * and the initial state of its type (none for a type this code does not know yet).
 */
export async function load(engine: TurnEngine, actorId: string): Promise<ActorRecord> {
  const stored = await engine.store.load(actorId);
  if (stored) return stored;
  const parsed = parseActorId(actorId);
  // A new life: its versions, message ids, ask ids and timers are told apart by this id.
  const fresh = {
    id: actorId,
    ver: 0,
    life: engine.newLife(),
    inboxOffset: '0',
    marks: {},
    sentSeq: 0,
  };
  // A type this code does not know yet has no state here: its messages wait for newer code,
  // and a dead letter kept meanwhile commits a record without state (NO_STATE_VERSION).
  if (parsed && !engine.registry.has(parsed.type)) {
    return { ...fresh, state: null, stateVersion: NO_STATE_VERSION };
  }
  // A malformed id throws here: no door lets one in.
  const definition = engine.registry.definition(parsed?.type ?? actorId);
  return {
    ...fresh,
    state: definition.initial(parsed?.key ?? ''),
    stateVersion: definition.version,
  };
}

/** The record as a turn builds on it: the sends it holds are drained already. */
export function withoutOutbox(record: ActorRecord): ActorRecord {
  if (record.outbox === undefined && record.outboxApart === undefined) return record;
  const { outbox: _held, outboxApart: _apart, ...rest } = record;
  return rest;
}
