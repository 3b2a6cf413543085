/**
 * How an operator's action changes an actor's record: one commit on its version, like a
 * turn's, made again on the record a turn committed meanwhile (which then loses its own commit,
 * reloads and sees the change).
 */
import { readConflict } from '../adapter/conflicts.ts';
import type { Commit, Store } from '../adapter/ports.ts';
import { type ActorRecord, RECORD_FORMAT } from '../adapter/storedRecords.ts';
import { BatonError, ErrorCode } from '../errors.ts';
import { lifeId } from '../shared/random.ts';
import { NO_STATE_VERSION } from '../stateVersions.ts';
import type { FollowUp } from './followUp.ts';

/** Who acts, and when (epoch ms; default now); how a refusal names the next command. */
export interface OperatorOptions {
  /** Recorded with the change, e.g. the caller's IAM ARN. */
  readonly by: string;
  readonly now?: number;
  /** @default {@link batonCommand} */
  readonly followUp?: FollowUp;
}

type Edit = Omit<Commit, 'expectedVer' | 'outbox' | 'idempotency'>;

/**
 * The change to make to a record, or `undefined` when there is nothing to do. What else of the
 * actor it reads (timers, dead letters) it reads here, after the load: those change only in the
 * actor's own commits, so the commit's version condition holds them as read.
 */
type Change = (record: ActorRecord) => Promise<Edit | undefined> | Edit | undefined;

const ATTEMPTS = 16;

/**
 * Refuses a record a newer Baton wrote, as a worker does (see `checkFormat`): written back by
 * this code, it would lose what this code does not know of it.
 */
function refuseNewerFormat(record: ActorRecord): void {
  const format = record.format ?? 1;
  if (format <= RECORD_FORMAT) return;
  throw new BatonError(
    ErrorCode.INVALID_STATE,
    `the record of ${record.id} has format ${format}, written by a newer Baton than this tool's (format ${RECORD_FORMAT}): nothing was changed; run the Baton the workers run (its CLI, or its inspector) to act on it`,
    { details: { actorId: record.id, format, supported: RECORD_FORMAT } },
  );
}

/** Commits `change` on the actor's current record, again on each version conflict. */
export async function changeRecord(
  store: Store,
  actorId: string,
  now: number,
  change: Change,
): Promise<ActorRecord> {
  for (let attempt = 1; ; attempt++) {
    const stored = await store.load(actorId);
    if (stored) refuseNewerFormat(stored);
    // An actor with no record (never committed, or its record expired): a record without state,
    // read as the initial one. It holds nothing, so it expires at once, as a halted record would:
    // kept while paused or holding parked messages (deletableAt), and for good only once a
    // message changes its state.
    const record: ActorRecord = stored ?? {
      id: actorId,
      ver: 0,
      life: lifeId(),
      state: null,
      stateVersion: NO_STATE_VERSION,
      inboxOffset: '0',
      marks: {},
      sentSeq: 0,
      expiresAt: now,
    };
    const next = await change(record);
    if (!next) return record;
    const written = { ...next.record, ver: record.ver + 1 };
    try {
      await store.commit({
        ...next,
        record: written,
        expectedVer: record.ver,
        outbox: [],
        idempotency: [],
      });
      return written;
    } catch (error) {
      if (readConflict(error)?.kind !== 'version' || attempt >= ATTEMPTS) throw error;
    }
  }
}
