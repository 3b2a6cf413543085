/**
 * Counting middleware for the AWS SDK clients: every command sent, and for DynamoDB the item
 * writes and write capacity units it costs. Attached to the clients of one side of a
 * benchmark, so each side's calls are counted apart, without going through Baton's ports.
 */
import type { AttributeValue, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { median } from '../measure.ts';

/** What a side's clients sent. */
export interface CallCounter {
  /** Commands by name, e.g. `TransactWriteItems`, `ReceiveMessage`. */
  readonly commands: Record<string, number>;
  /** Items written (put, update or delete), whatever the call. */
  itemWrites: number;
  /**
   * Write capacity units: 1 per KB per item, twice that inside a transaction. DynamoDB bills an
   * update or a delete by the whole item (the larger of before and after), so the attributes of
   * the items this side wrote are kept (`items`) to count its updates by.
   */
  wcu: number;
  /**
   * Write capacity units of the table's indexes, as DynamoDB reports them (the clients of a
   * side made with `capacity` ask for them): an index write is counted only when an item's
   * index key or projection changes, which no count of the requests can tell.
   */
  indexWcu: number;
  /** SQS requests (every SQS command; a batch of 10 is one request). */
  sqsRequests: number;
  /** Each call's milliseconds, by command: medians, which the outliers of a shared host do not skew. */
  readonly durations: Record<string, number[]>;
  /**
   * Milliseconds from the end of one call to the start of the next, by the pair of commands
   * (`ReceiveMessage→PutItem`): where the code between a side's calls runs. A call that starts
   * while another runs has none.
   */
  readonly gaps: Record<string, number[]>;
  /** The last call to end: where the next gap starts. */
  last?: { readonly name: string; readonly end: number };
  /** Calls started and not ended: a call that starts while one runs has no gap before it. */
  running: number;
  /** The attributes of each item this side wrote, by table and key, with their sizes. */
  readonly items: Map<string, Map<string, number>>;
}

export function newCounter(): CallCounter {
  return {
    commands: {},
    itemWrites: 0,
    wcu: 0,
    indexWcu: 0,
    sqsRequests: 0,
    durations: {},
    gaps: {},
    running: 0,
    items: new Map(),
  };
}

export function resetCounter(counter: CallCounter): void {
  for (const name of Object.keys(counter.commands)) delete counter.commands[name];
  for (const name of Object.keys(counter.durations)) delete counter.durations[name];
  for (const name of Object.keys(counter.gaps)) delete counter.gaps[name];
  counter.last = undefined;
  counter.itemWrites = 0;
  counter.wcu = 0;
  counter.indexWcu = 0;
  counter.sqsRequests = 0;
}

type Item = Record<string, AttributeValue>;
interface Put {
  TableName?: string;
  Item?: Item;
}
interface Change {
  TableName?: string;
  Key?: Item;
  /** An update's expression, names and values (a delete has none). */
  UpdateExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Item;
}
interface WriteInput extends Put, Change {
  ReturnConsumedCapacity?: 'INDEXES';
  TransactItems?: Array<{ Put?: Put; Update?: Change; Delete?: Change }>;
  RequestItems?: Record<string, Array<{ PutRequest?: Put; DeleteRequest?: Change }>>;
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
      for (const write of writes) {
        counter.itemWrites++;
        const bytes = billedBytes(counter.items, write);
        counter.wcu += write.factor * Math.max(1, Math.ceil(bytes / 1024));
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
  const last = counter.last;
  if (last && counter.running === 0) push(counter.gaps, `${last.name}→${name}`, start - last.end);
  counter.running++;
  try {
    return await call();
  } finally {
    const end = performance.now();
    push(counter.durations, name, end - start);
    counter.last = { name, end };
    counter.running--;
  }
}

/** Milliseconds the side spent waiting on its calls, all commands together. */
export function callMs(counter: CallCounter): number {
  return sum(Object.values(counter.durations).flat());
}

const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);

function push(lists: Record<string, number[]>, key: string, value: number): void {
  const list = lists[key];
  if (list) list.push(value);
  else lists[key] = [value];
}

/**
 * `ReceiveMessage 2.02 (mean 2.41) ms, …`: the median and the mean time per call, by command.
 * The mean is what the side's total holds; the median, what a typical call took.
 */
export function formatCallTimes(counter: CallCounter): string {
  return Object.keys(counter.commands)
    .sort()
    .map((name) => {
      const durations = counter.durations[name] ?? [];
      const mean = sum(durations) / counter.commands[name]!;
      const typical = median(durations);
      return `${name} ${typical.toFixed(2)} (mean ${mean.toFixed(2)}) ms`;
    })
    .join(', ');
}

/**
 * `ReceiveMessage→PutItem 0.14 ms, …`: the median time between the end of one call and the
 * start of the next, for each pair of commands seen at least `least` times.
 */
export function formatGaps(counter: CallCounter, least: number): string {
  return Object.entries(counter.gaps)
    .filter(([, gaps]) => gaps.length >= least)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([pair, gaps]) => `${pair} ${median(gaps).toFixed(2)} ms`)
    .join(', ');
}

/** One item a write command writes: put whole, updated or deleted. */
interface Write {
  readonly kind: 'put' | 'update' | 'delete';
  readonly table: string;
  /** The item (a put) or its key. */
  readonly key: Item;
  /** A put's attributes, or those an update sets (`undefined`: removes), with their sizes. */
  readonly sets: ReadonlyMap<string, number | undefined>;
  /** 2 inside a transaction, else 1. */
  readonly factor: number;
}

/** The items a write command writes, with their WCU factor. */
function writesOf(name: string, input: WriteInput): Write[] {
  const put = (p: Put, factor: number): Write => ({
    kind: 'put',
    table: p.TableName ?? '',
    key: p.Item ?? {},
    sets: attributesOf(p.Item ?? {}),
    factor,
  });
  const change = (kind: 'update' | 'delete', c: Change, factor: number): Write => ({
    kind,
    table: c.TableName ?? '',
    key: c.Key ?? {},
    sets: kind === 'update' ? updateOf(c) : new Map(),
    factor,
  });
  switch (name) {
    case 'TransactWriteItems':
      return (input.TransactItems ?? []).flatMap((t) => {
        if (t.Put) return [put(t.Put, 2)];
        if (t.Update) return [change('update', t.Update, 2)];
        return t.Delete ? [change('delete', t.Delete, 2)] : [];
      });
    case 'BatchWriteItem':
      return Object.entries(input.RequestItems ?? {}).flatMap(([table, requests]) =>
        requests.map((r) =>
          r.PutRequest
            ? put({ ...r.PutRequest, TableName: table }, 1)
            : change('delete', { ...r.DeleteRequest, TableName: table }, 1),
        ),
      );
    case 'PutItem':
      return [put(input, 1)];
    case 'UpdateItem':
      return [change('update', input, 1)];
    case 'DeleteItem':
      return [change('delete', input, 1)];
    default:
      return [];
  }
}

/**
 * The bytes DynamoDB bills `write` by: the larger of the item before and after it. `items`
 * keeps each item's attributes after the write.
 */
function billedBytes(items: Map<string, Map<string, number>>, write: Write): number {
  const id = `${write.table}\u0000${write.key.pk?.S}\u0000${write.key.sk?.S}`;
  const before = items.get(id) ?? new Map<string, number>();
  // An update of an item not seen yet creates it with its key.
  const after =
    write.kind === 'update'
      ? new Map([...attributesOf(write.key), ...before])
      : new Map<string, number>();
  for (const [name, bytes] of write.sets) {
    if (bytes === undefined) after.delete(name);
    else after.set(name, bytes);
  }
  if (write.kind === 'delete') items.delete(id);
  else items.set(id, after);
  return Math.max(sizeOf(before), sizeOf(after));
}

const sizeOf = (attributes: ReadonlyMap<string, number>): number =>
  [...attributes.values()].reduce((sum, bytes) => sum + bytes, 0);

/** An item's attributes with their sizes as DynamoDB counts them, near enough: name and value. */
function attributesOf(item: Item): Map<string, number> {
  const attributes = new Map<string, number>();
  for (const [name, value] of Object.entries(item)) {
    attributes.set(name, Buffer.byteLength(name) + valueBytes(value));
  }
  return attributes;
}

/**
 * The attributes an update sets (`#name = :value`) and removes (`REMOVE #name`), read from its
 * expression: enough for the updates Baton and the baselines make.
 */
function updateOf(change: Change): Map<string, number | undefined> {
  const names = change.ExpressionAttributeNames ?? {};
  const values = change.ExpressionAttributeValues ?? {};
  const [set = '', remove = ''] = (change.UpdateExpression ?? '').split(/\bREMOVE\b/);
  const sets = new Map<string, number | undefined>();
  for (const [, ref, value] of set.matchAll(/(#\w+)\s*=\s*(:\w+)/g)) {
    const name = names[ref!] ?? ref!;
    const given = values[value!];
    sets.set(name, Buffer.byteLength(name) + (given ? valueBytes(given) : 0));
  }
  for (const [ref] of remove.matchAll(/#\w+/g)) sets.set(names[ref] ?? ref, undefined);
  return sets;
}

/** A value's size as DynamoDB documents it: a map or list 3 bytes, and 1 more an element. */
function valueBytes(value: AttributeValue): number {
  if (value.S !== undefined) return Buffer.byteLength(value.S);
  if (value.N !== undefined) return Math.ceil(value.N.length / 2) + 1;
  if (value.M !== undefined) {
    let bytes = 3;
    for (const [name, element] of Object.entries(value.M)) {
      bytes += Buffer.byteLength(name) + valueBytes(element) + 1;
    }
    return bytes;
  }
  if (value.L !== undefined) return value.L.reduce((sum, v) => sum + valueBytes(v) + 1, 3);
  if (value.BOOL !== undefined || value.NULL !== undefined) return 1;
  return Buffer.byteLength(JSON.stringify(value));
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
