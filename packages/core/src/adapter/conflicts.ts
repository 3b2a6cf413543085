/**
 * The errors a `Store.commit` throws when a condition or limit fails. Adapters build them
 * from their vendor's failure (DynamoDB: the cancellation reasons of a TransactWriteItems);
 * the engine reads them back with {@link readConflict}.
 */
import { type BatonError, batonError, ErrorCode, isBatonError } from '../errors.ts';
import type { ActorRecord } from './storedRecords.ts';

export { jsonSize } from '../shared/jsonSize.ts';

/** The record's version moved. `current` is the stored record when the backend returned it. */
export function versionConflict(actorId: string, current?: ActorRecord): BatonError {
  return batonError(
    ErrorCode.VERSION_CONFLICT,
    `actor ${actorId} was committed by someone else since it was read`,
    { actorId, current },
  );
}

/** Idempotency records with these keys already exist. */
export function duplicateKeys(keys: readonly string[]): BatonError {
  return batonError(ErrorCode.DUPLICATE, `idempotency keys already used: ${keys.join(', ')}`, {
    keys: [...keys],
  });
}

export function transactionTooLarge(what: string, limit: number, actual: number): BatonError {
  return batonError(
    ErrorCode.TRANSACTION_TOO_LARGE,
    `commit too large: ${what} is ${actual}, the limit is ${limit}`,
    { what, limit, actual },
  );
}

export type Conflict =
  | { readonly kind: 'version'; readonly current: ActorRecord | undefined }
  | { readonly kind: 'duplicate'; readonly keys: readonly string[] };

/** Reads a commit failure back; `undefined` if the error is not a conflict the engine can redo. */
export function readConflict(error: unknown): Conflict | undefined {
  if (!isBatonError(error)) return undefined;
  if (error.code === ErrorCode.VERSION_CONFLICT) {
    return { kind: 'version', current: error.details.current as ActorRecord | undefined };
  }
  if (error.code === ErrorCode.DUPLICATE) {
    return { kind: 'duplicate', keys: (error.details.keys as string[] | undefined) ?? [] };
  }
  return undefined;
}
