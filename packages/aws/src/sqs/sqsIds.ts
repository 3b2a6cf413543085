import { isSqsId, SQS_DEDUPE_ATTRIBUTE, SQS_GROUP_ATTRIBUTE } from '@baton/core/adapter';
import { sha256 } from '../internal/sha256.ts';

export { toSqsBody } from '@baton/core/adapter';

/** The message attributes that carry a group or dedupe id SQS could not take as it is. */
export const GROUP_ATTRIBUTE = SQS_GROUP_ATTRIBUTE;
export const DEDUPE_ATTRIBUTE = SQS_DEDUPE_ATTRIBUTE;

/**
 * An id SQS accepts for a group or dedupe id: the value itself when it follows SQS's rule,
 * else its sha256 (64 hex characters) — stable, so dedupe and grouping still work.
 */
export function toSqsId(value: string): { id: string; hashed: boolean } {
  if (isSqsId(value)) return { id: value, hashed: false };
  return { id: sha256(value, 'hex'), hashed: true };
}
