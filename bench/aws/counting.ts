/**
 * Counting middleware for the AWS SDK clients: every command sent, and for DynamoDB the item
 * writes and write capacity units it costs. Attached to the clients of one side of a
 * benchmark, so each side's calls are counted apart, without going through Baton's ports.
 */
import type { AttributeValue, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SQSClient } from '@aws-sdk/client-sqs';

/** What a side's clients sent. */
export interface CallCounter {
  /** Commands by name, e.g. `TransactWriteItems`, `ReceiveMessage`. */
  readonly commands: Record<string, number>;
  /** Items written (put, update or delete), whatever the call. */
  itemWrites: number;
  /** Write capacity units: 1 per KB per item, twice that inside a transaction. */
  wcu: number;
  /**
   * Write capacity units of the table's indexes, as DynamoDB reports them (the clients of a
   * side made with `capacity` ask for them): an index write is counted only when an item's
   * index key or projection changes, which no count of the requests can tell.
   */
  indexWcu: number;
  /** SQS requests (every SQS command; a batch of 10 is one request). */
  sqsRequests: number;
  /** Milliseconds spent waiting on each command, by name. */
  readonly ms: Record<string, number>;
}

export function newCounter(): CallCounter {
  return { commands: {}, itemWrites: 0, wcu: 0, indexWcu: 0, sqsRequests: 0, ms: {} };
}

export function resetCounter(counter: CallCounter): void {
  for (const name of Object.keys(counter.commands)) delete counter.commands[name];
  for (const name of Object.keys(counter.ms)) delete counter.ms[name];
  counter.itemWrites = 0;
  counter.wcu = 0;
  counter.indexWcu = 0;
  counter.sqsRequests = 0;
}

type Item = Record<string, AttributeValue>;
interface WriteInput {
  ReturnConsumedCapacity?: 'INDEXES';
  TransactItems?: Array<{ Put?: { Item?: Item }; Update?: unknown; Delete?: unknown }>;
  RequestItems?: Record<string, Array<{ PutRequest?: { Item?: Item }; DeleteRequest?: unknown }>>;
  Item?: Item;
}

/**
 * Counts every command `client` sends into `counter`. With `capacity`, its writes also ask
 * DynamoDB for the capacity they consumed on the table's indexes (`indexWcu`): a request
 * changed for counting, so only the untimed cost run asks.
 */
export function countDynamoDb(
  client: DynamoDBClient,
  counter: CallCounter,
  { capacity = false }: { capacity?: boolean } = {},
): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const name = String(context.commandName ?? 'unknown').replace(/Command$/, '');
      counter.commands[name] = (counter.commands[name] ?? 0) + 1;
      const input = args.input as WriteInput;
      const writes = writesOf(name, input);
      for (const [items, factor] of writes) {
        counter.itemWrites += items.length;
        for (const item of items)
          counter.wcu += factor * Math.max(1, Math.ceil(itemBytes(item) / 1024));
      }
      if (capacity && writes.length > 0) input.ReturnConsumedCapacity = 'INDEXES';
      const result = await timed(counter, name, () => next(args));
      counter.indexWcu += indexUnits((result.output as WriteOutput).ConsumedCapacity);
      return result;
    },
    { step: 'initialize', name: 'benchCallCounter' },
  );
}

interface Consumed {
  GlobalSecondaryIndexes?: Record<string, { CapacityUnits?: number }>;
}
interface WriteOutput {
  /** One for a single-item write, a list (one per table) for a transaction or batch. */
  ConsumedCapacity?: Consumed | Consumed[];
}

/** The capacity units a write's answer says its indexes consumed (0 when it did not say). */
function indexUnits(consumed: Consumed | Consumed[] | undefined): number {
  let units = 0;
  for (const table of [consumed ?? []].flat()) {
    for (const index of Object.values(table.GlobalSecondaryIndexes ?? {})) {
      units += index.CapacityUnits ?? 0;
    }
  }
  return units;
}

/** Counts every command `client` sends into `counter`, as SQS requests. */
export function countSqs(client: SQSClient, counter: CallCounter): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const name = String(context.commandName ?? 'unknown').replace(/Command$/, '');
      counter.commands[name] = (counter.commands[name] ?? 0) + 1;
      counter.sqsRequests++;
      return timed(counter, name, () => next(args));
    },
    { step: 'initialize', name: 'benchCallCounter' },
  );
}

async function timed<T>(counter: CallCounter, name: string, call: () => Promise<T>): Promise<T> {
  const start = performance.now();
  try {
    return await call();
  } finally {
    counter.ms[name] = (counter.ms[name] ?? 0) + performance.now() - start;
  }
}

/** `TransactWriteItems 4.1 ms, ReceiveMessage 2.0 ms`: mean time per call, by command. */
export function formatCallTimes(counter: CallCounter): string {
  return Object.keys(counter.commands)
    .sort()
    .map((name) => `${name} ${((counter.ms[name] ?? 0) / counter.commands[name]!).toFixed(1)} ms`)
    .join(', ');
}

/** The items a write command writes (undefined: a delete, sized as 1 KB), with its WCU factor. */
function writesOf(name: string, input: WriteInput): Array<[Array<Item | undefined>, number]> {
  switch (name) {
    case 'TransactWriteItems':
      return [[(input.TransactItems ?? []).map((t) => t.Put?.Item), 2]];
    case 'BatchWriteItem':
      return [
        [
          Object.values(input.RequestItems ?? {})
            .flat()
            .map((r) => r.PutRequest?.Item),
          1,
        ],
      ];
    case 'PutItem':
      return [[[input.Item], 1]];
    case 'UpdateItem':
    case 'DeleteItem':
      return [[[undefined], 1]];
    default:
      return [];
  }
}

/** An item's size as DynamoDB counts it, near enough: names plus values, in UTF-8 bytes. */
function itemBytes(item: Item | undefined): number {
  if (!item) return 0;
  let bytes = 0;
  for (const [name, value] of Object.entries(item)) {
    bytes += Buffer.byteLength(name);
    if (value.S !== undefined) bytes += Buffer.byteLength(value.S);
    else if (value.N !== undefined) bytes += Math.ceil(value.N.length / 2) + 1;
    else bytes += Buffer.byteLength(JSON.stringify(value));
  }
  return bytes;
}

/** Calls per `per` operations of a counter, flat, e.g. `{ TransactWriteItems: 1, itemWrites: 2 }`. */
export function perOp(counter: CallCounter, per: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const name of Object.keys(counter.commands).sort()) {
    out[name] = round(counter.commands[name]! / per);
  }
  out.itemWrites = round(counter.itemWrites / per);
  out.wcu = round(counter.wcu / per);
  out.indexWcu = round(counter.indexWcu / per);
  out.sqsRequests = round(counter.sqsRequests / per);
  return out;
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}

/** `TransactWriteItems 1, ReceiveMessage 1.1 (item writes 2, WCU 4, index WCU 0, SQS 3)` */
export function formatPerOp(counts: Record<string, number>): string {
  const { itemWrites, wcu, indexWcu, sqsRequests, ...commands } = counts;
  const list = Object.entries(commands)
    .map(([name, n]) => `${name} ${n}`)
    .join(', ');
  return `${list} (item writes ${itemWrites}, WCU ${wcu}, index WCU ${indexWcu}, SQS requests ${sqsRequests})`;
}
