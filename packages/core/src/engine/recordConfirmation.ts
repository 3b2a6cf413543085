import { versionConflict } from '../adapter/conflicts.ts';
import type { ActorRecord } from '../adapter/storedRecords.ts';
import type { BatonError } from '../errors.ts';
import type { TurnEngine } from './createEngine.ts';

/**
 * Confirms, once for the handling, that the store still holds version `baseVer` of `record`,
 * the one the turn builds on: a warm copy may be older than what another worker committed since.
 * Rejects with a version conflict carrying the store's record otherwise — an error of its own,
 * which the turn tells from any a handler throws.
 */
export function recordConfirmation(
  engine: TurnEngine,
  record: ActorRecord,
  baseVer: number,
): { check(): Promise<void>; refused(error: unknown): boolean } {
  let checking: Promise<void> | undefined;
  let conflict: BatonError | undefined;
  return {
    check: () =>
      (checking ??= engine.store.load(record.id).then((stored) => {
        if ((stored?.ver ?? 0) === baseVer && stored?.life === record.life) return;
        conflict = versionConflict(record.id, stored);
        throw conflict;
      })),
    /** Whether `error` is this check's refusal. */
    refused: (error) => error !== undefined && error === conflict,
  };
}
