/**
 * The pages of a Query or Scan, read one at a time so that a reader may stop early: no page is
 * read past the one it stopped on. Failures come back as UNAVAILABLE, named after `operation`.
 */
import { unavailable } from '../internal/unavailable.ts';
import type { Item } from './itemCodec.ts';

/** What a Query or Scan answers, as far as paging goes. */
interface Page {
  readonly Items?: Item[];
  readonly LastEvaluatedKey?: Item;
}

/**
 * Each page's items, from `start` (or the first page) to the last. `read` sends the request,
 * spreading `from` (the page's `ExclusiveStartKey`, if any) into its input.
 *
 * @example
 * for await (const items of itemPages((from) => client.send(new QueryCommand({ ...input, ...from })), 'Query (x)')) { … }
 */
export async function* itemPages(
  read: (from: { readonly ExclusiveStartKey?: Item }) => Promise<Page>,
  operation: string,
  start?: Item,
): AsyncGenerator<Item[], void, undefined> {
  let next = start;
  do {
    let page: Page;
    try {
      page = await read(next ? { ExclusiveStartKey: next } : {});
    } catch (error) {
      throw unavailable('DynamoDB', operation, error);
    }
    yield page.Items ?? [];
    next = page.LastEvaluatedKey;
  } while (next);
}
