import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { type HeldActors, listHeldActors } from './listHeldActors.ts';

export type { PausedWorkflow } from './listHeldActors.ts';

/** What {@link listPausedActors} found: {@link HeldActors} but the failing actors. */
export type PausedActors = Omit<HeldActors, 'failing'>;

/**
 * The actors an operator holds paused (`pauseActor`), and the workflow instances paused because
 * their code did not replay their history: {@link listHeldActors}'s scan, at most `maxItems`
 * items of the table read.
 *
 * @example
 * const { actors, workflows, complete } = await listPausedActors(dynamodb, 'bank-actors', {
 *   maxItems: 10_000,
 * });
 */
export async function listPausedActors(
  client: DynamoDBClient,
  tableName: string,
  { maxItems }: { readonly maxItems: number },
): Promise<PausedActors> {
  const operation = 'Scan (listPausedActors)';
  const { failing: _, ...paused } = await listHeldActors(client, tableName, {
    maxItems,
    operation,
  });
  return paused;
}
