import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { FailingMessage } from '@baton/core/adapter';
import { scanRecords } from './scanRecords.ts';
import { Attr, actorIdOf } from './tableLayout.ts';

/** What {@link listFailingActors} found. */
export interface FailingActors {
  /** The actors it came upon whose inbox stops at a failing message, in table order. */
  readonly actors: ReadonlyArray<{ readonly id: string; readonly failing: FailingMessage }>;
  /** Whether it read the whole table: `false` when it stopped at `maxItems`. */
  readonly complete: boolean;
}

/**
 * The actors whose inbox stops at a message whose handler keeps failing (`ActorRecord.failing`):
 * the messages behind it in their queue wait. For operators (`baton backlog`). No index finds
 * them (it is a field of the record), so it scans the table, reading at most `maxItems` items of
 * every kind: a tool's call, never a handler's.
 *
 * @example
 * const { actors, complete } = await listFailingActors(dynamodb, 'bank-actors', { maxItems: 10_000 });
 */
export async function listFailingActors(
  client: DynamoDBClient,
  tableName: string,
  { maxItems }: { readonly maxItems: number },
): Promise<FailingActors> {
  const actors: Array<{ id: string; failing: FailingMessage }> = [];
  const scan = {
    filter: 'attribute_exists(#failing)',
    projection: '#pk, #failing',
    names: { '#failing': Attr.failing },
    maxItems,
    operation: 'Scan (listFailingActors)',
  };
  const complete = await scanRecords(client, tableName, scan, (item) => {
    const text = item[Attr.failing]?.S;
    if (text === undefined) return;
    actors.push({ id: actorIdOf(item[Attr.pk]?.S ?? ''), failing: JSON.parse(text) });
  });
  return { actors, complete };
}
