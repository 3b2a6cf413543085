/**
 * An actor's ingress outcome pages on DynamoDB (`Store.readPagedOutcomes`): one item per page,
 * `I#@<actor id>` + `P#<page>`, under the outcomes' own partition-key prefix (so whatever may
 * read outcomes may read them, and nothing else). Each outcome is an attribute of its own,
 * named after its key, that a commit sets on condition that it is absent or expired: the
 * page's `UpdateItem`, in the commit's transaction, is a batch's one write for all its
 * outcomes, and a copy of a message of the current page fails it as a DUPLICATE. `pm` is the
 * latest `sentAt` of the page and the pages before it, so a reader that goes back from the
 * newest page stops at the first whose `pm` is earlier than the message it looks for.
 */
import type { AttributeValue, DynamoDBClient, TransactWriteItem } from '@aws-sdk/client-dynamodb';
import { BatonError, ErrorCode } from '@baton/core';
import type { Clock, OutcomePageWrite, PagedOutcome } from '@baton/core/adapter';
import { QueryCommand } from '../sdk.ts';
import { IF_ABSENT, type Item, itemKey } from './itemCodec.ts';
import { itemPages } from './itemPages.ts';
import { Attr, boundedKey, IDEMPOTENCY_PK_PREFIX } from './tableLayout.ts';

/** The partition key of an actor's outcome pages. */
export const outcomePagesPk = (actorId: string): string =>
  `${IDEMPOTENCY_PK_PREFIX}@${boundedKey(actorId)}`;
/** The sort key prefix of outcome pages. */
export const PAGE_SK_PREFIX = 'P#';
/** A page's sort key: its number, padded so that sort keys order like numbers. */
export const pageSk = (page: number): string =>
  `${PAGE_SK_PREFIX}${String(page).padStart(16, '0')}`;
/** The attribute that holds the outcome of `key` in its page. */
export const outcomeAttribute = (key: string): string => `o:${boundedKey(key)}`;
/** Pages read per request when going back from the newest: 8 KB of outcomes at most. */
const PAGES_PER_READ = 8;

/**
 * The transaction item that appends a commit's outcomes to their page. Per outcome (`whole`
 * false), each is set only if its attribute is absent or holds an expired outcome. `whole`, for
 * a write that {@link OutcomePageWrite.begins} its page: the page is put whole, only if no such
 * item exists, one condition however many outcomes (DynamoDB evaluates ten conditions in a
 * transaction at a cost of their own). A page that exists then fails it, and the store writes
 * again per outcome ({@link pageExistedOnly}).
 */
export function pageWriteItem(
  tableName: string,
  actorId: string,
  write: OutcomePageWrite,
  now: number,
  whole = false,
): TransactWriteItem {
  const key = itemKey(outcomePagesPk(actorId), pageSk(write.page));
  // DynamoDB's TTL reads epoch seconds; it deletes within days, so reads check `e` too.
  const ttl = { N: String(Math.ceil(latestExpiry(write) / 1000)) };
  const pm = { N: String(write.sentAt) };
  if (whole) {
    const item: Item = { ...key, pm, [Attr.ttl]: ttl };
    for (const outcome of write.records) {
      item[outcomeAttribute(outcome.key)] = { M: outcomeValue(outcome) };
    }
    return {
      Put: {
        TableName: tableName,
        Item: item,
        ...IF_ABSENT,
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    };
  }
  const names: Record<string, string> = { '#pm': 'pm', '#ttl': Attr.ttl, '#e': 'e' };
  const values: Record<string, AttributeValue> = {
    ':pm': pm,
    ':now': { N: String(now) },
    ':ttl': ttl,
  };
  const sets = ['#pm = :pm', '#ttl = :ttl'];
  const conditions: string[] = [];
  write.records.forEach((outcome, i) => {
    names[`#o${i}`] = outcomeAttribute(outcome.key);
    values[`:o${i}`] = { M: outcomeValue(outcome) };
    sets.push(`#o${i} = :o${i}`);
    conditions.push(`(attribute_not_exists(#o${i}) OR #o${i}.#e <= :now)`);
  });
  return {
    Update: {
      TableName: tableName,
      Key: key,
      UpdateExpression: `SET ${sets.join(', ')}`,
      ConditionExpression: conditions.join(' AND '),
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    },
  };
}

function latestExpiry(write: OutcomePageWrite): number {
  let expiresAt = 0;
  for (const outcome of write.records) expiresAt = Math.max(expiresAt, outcome.expiresAt);
  return expiresAt;
}

function outcomeValue(outcome: PagedOutcome): Record<string, AttributeValue> {
  const { actorId: _, ...kept } = outcome;
  return { j: { S: JSON.stringify(kept) }, e: { N: String(outcome.expiresAt) } };
}

/** The keys of `write` whose live outcome the stored page (`item`, as it was) holds already. */
export function keysInPage(item: Item, write: OutcomePageWrite, now: number): string[] {
  return write.records
    .filter(({ key }) => {
      const held = item[outcomeAttribute(key)]?.M;
      return held !== undefined && Number(held.e?.N ?? 0) > now;
    })
    .map(({ key }) => key);
}

/**
 * How much earlier than the newest outcome of a page an outcome may expire and still count as
 * written by the page's last commit: the workers' clocks differ a little.
 */
const SAME_COMMIT_MS = 60_000;

/**
 * The outcomes the last write of a page item (a stream's new image) added: those that expire
 * with its newest, give or take {@link SAME_COMMIT_MS}. Their actor id is the page's.
 */
export function newestOutcomes(item: Item): PagedOutcome[] {
  const pk = item[Attr.pk]?.S ?? '';
  const actorId = pk.slice(`${IDEMPOTENCY_PK_PREFIX}@`.length);
  const all = outcomesOf(item, actorId, Number.NEGATIVE_INFINITY);
  const newest = Math.max(...all.map((outcome) => outcome.expiresAt));
  return all.filter((outcome) => outcome.expiresAt >= newest - SAME_COMMIT_MS);
}

/** The live outcomes of one page item. */
function outcomesOf(item: Item, actorId: string, now: number): PagedOutcome[] {
  const found: PagedOutcome[] = [];
  for (const [name, value] of Object.entries(item)) {
    if (!name.startsWith('o:') || !value.M?.j?.S) continue;
    const kept = JSON.parse(value.M.j.S) as Omit<PagedOutcome, 'actorId'>;
    if (kept.expiresAt > now) found.push({ ...kept, actorId });
  }
  return found;
}

/**
 * The live outcomes of the pages of `actorId` that may hold a message sent at `sentAt` (or, with
 * `key`, only its outcome, as soon as a page holds it), going back from the newest page to
 * `fromPage` at most. With `maxPages`, a read that would go through more pages throws
 * LIMIT_EXCEEDED instead. With `readOn`, it asks it before each request after the first.
 */
export async function readPages(
  client: DynamoDBClient,
  tableName: string,
  clock: Clock,
  request: {
    readonly actorId: string;
    readonly sentAt: number;
    readonly fromPage?: number;
    readonly key?: string;
    readonly maxPages?: number;
    /** Whether to read on past the first request: false once the answer came from elsewhere. */
    readonly readOn?: () => Promise<boolean>;
  },
): Promise<PagedOutcome[]> {
  const { actorId, sentAt, fromPage = 0, key, maxPages = Infinity } = request;
  const now = clock.now();
  const found: PagedOutcome[] = [];
  let read = 0;
  const pages = itemPages(
    (from) =>
      client.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
          ExpressionAttributeNames: { '#pk': Attr.pk, '#sk': Attr.sk },
          ExpressionAttributeValues: {
            ':pk': { S: outcomePagesPk(actorId) },
            ':from': { S: pageSk(fromPage) },
            ':to': { S: pageSk(Number.MAX_SAFE_INTEGER) },
          },
          ScanIndexForward: false,
          ConsistentRead: true,
          // One page past the bound at most: the one that tells the read needs more.
          Limit: Math.min(PAGES_PER_READ, maxPages - read + 1),
          ...from,
        }),
      ),
    'Query (readPagedOutcomes)',
  );
  for await (const items of pages) {
    for (const item of items) {
      // Pages before this one hold only messages sent before `sentAt`.
      if (Number(item.pm?.N ?? 0) < sentAt) return found;
      if (++read > maxPages) throw tooManyPages(actorId, sentAt, maxPages, key);
      const outcomes = outcomesOf(item, actorId, now);
      if (key === undefined) {
        found.push(...outcomes);
        continue;
      }
      const match = outcomes.find((outcome) => outcome.key === key);
      if (match) return [match];
    }
    if (request.readOn && !(await request.readOn())) return found;
  }
  return found;
}

function tooManyPages(
  actorId: string,
  sentAt: number,
  maxPages: number,
  key: string | undefined,
): BatonError {
  return new BatonError(
    ErrorCode.LIMIT_EXCEEDED,
    `reading ${key ?? 'the outcomes'} takes more than ${maxPages} outcome pages of ${actorId}: pass the sentAt its send returned (an operator: baton outcome)`,
    { details: { actorId, sentAt, limit: maxPages } },
  );
}
