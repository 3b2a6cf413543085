import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { type HeldActors, listHeldActors } from './listHeldActors.ts';

/** What {@link listFailingActors} found. */
export interface FailingActors {
  /** The actors it came upon whose inbox stops at a failing message, in table order. */
  readonly actors: HeldActors['failing'];
  /** Whether it read the whole table: `false` when it stopped at `maxItems`. */
  readonly complete: boolean;
}

/**
 * The actors whose inbox stops at a message whose handler keeps failing (`ActorRecord.failing`):
 * the messages behind it in their queue wait. {@link listHeldActors}'s scan, at most `maxItems`
 * items of the table read.
 *
 * @example
 * const { actors, complete } = await listFailingActors(dynamodb, 'bank-actors', { maxItems: 10_000 });
 */
export async function listFailingActors(
  client: DynamoDBClient,
  tableName: string,
  { maxItems }: { readonly maxItems: number },
): Promise<FailingActors> {
  const operation = 'Scan (listFailingActors)';
  const { failing, complete } = await listHeldActors(client, tableName, { maxItems, operation });
  return { actors: failing, complete };
}
