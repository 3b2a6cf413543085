/**
 * 1. Turn overhead on DynamoDB (DESIGN "Budgets": ≤ 1.10x).
 *
 * Candidate: `runTurn` on a `DynamoStore`, warm (the record is cached, as in a busy worker):
 * a deposit that changes the state and sends one message, so one `TransactWriteItems` of the
 * actor record (on its version, holding the send) and the actor's outcome page (put whole on
 * "absent" by the commit that begins it, else its outcome set on "absent or expired"), with its
 * `ClientRequestToken`.
 *
 * Baseline: the same `TransactWriteItems`, written with the AWS SDK directly — the two items
 * built by hand as plain attribute values (same keys, attributes and conditions), a random
 * `ClientRequestToken`, the record and its outcome page state kept in local variables, the
 * page rolled over at the engine's byte rules (see ../outcomePage.ts). A check before the
 * rounds compares every transaction of a round of each side, across two page boundaries, and
 * the run throws if the two sides' item writes or write units differ.
 */
import { randomUUID } from 'node:crypto';
import {
  type AttributeValue,
  GetItemCommand,
  type TransactWriteItem,
  TransactWriteItemsCommand,
} from '@aws-sdk/client-dynamodb';
import { DYNAMO_STORE_LIMITS, DynamoStore } from '@baton/aws';
import { silentLogger } from '@baton/core';
import type { OutcomePageState, Queue } from '@baton/core/adapter';
import { createEngine, runTurn } from '@baton/core/engine';
import { formatNs, interleave, median, type Sample } from '../measure.ts';
import { appendOutcome, firstPageState } from '../outcomePage.ts';
import { pairedFigures, type Row } from '../report.ts';
import { Account, ingress, Ledger } from './actors.ts';
import { type CallCounter, formatCallTimes, formatPerOp, perOp, resetCounter } from './counting.ts';
import type { Clients, Target } from './target.ts';

const DAY = 24 * 60 * 60 * 1000;
/** Reads the results back: its calls count on neither side. */
let checker: Clients | undefined;
type Item = Record<string, AttributeValue>;

export interface TurnOverheadOptions {
  readonly target: Target;
  /** Turns per round. */
  readonly ops: number;
  readonly rounds: number;
  readonly warmup: number;
  readonly log: (line: string) => void;
}

/** runTurn sends only what a turn before it left undrained: nothing here. */
const noQueue: Queue = {
  send: () => Promise.reject(new Error('unused')),
  receive: () => Promise.reject(new Error('unused')),
  ack: () => Promise.reject(new Error('unused')),
  release: () => Promise.reject(new Error('unused')),
};

export async function turnOverhead(options: TurnOverheadOptions): Promise<Row> {
  const { target, ops, log } = options;
  const tableName = await target.table('turn');
  const engineSide = target.clients();
  const rawSide = target.clients();
  checker = target.clients();
  let round = 0;
  // Keys of one length on both sides: a longer key takes more of a page, which may then roll
  // over a turn earlier.
  const tag = () => `r${String(++round).padStart(4, '0')}`;
  await checkSameItems(engineSide, rawSide, tableName, log);
  sameWrites(engineSide.counter, rawSide.counter, 'the shape check');
  resetCounter(engineSide.counter);
  resetCounter(rawSide.counter);
  const result = await interleave({
    baseline: () => rawRound(rawSide, tableName, tag(), ops),
    candidate: () => engineRound(engineSide, tableName, tag(), ops),
    rounds: options.rounds,
    warmup: options.warmup,
  });
  const turns = (options.rounds + options.warmup) * (ops + 1);
  const calls = {
    baton: perOp(engineSide.counter, turns),
    baseline: perOp(rawSide.counter, turns),
  };
  sameWrites(engineSide.counter, rawSide.counter, 'the rounds');
  const baseline = median(result.baseline);
  const candidate = median(result.candidate);
  log(
    `  raw TransactWriteItems ${formatNs(baseline)}/turn, runTurn ${formatNs(candidate)}/turn ` +
      `(${ops} turns × ${options.rounds} rounds per side); engine adds ${formatNs(candidate - baseline)}/turn`,
  );
  log(`  calls per turn: baton ${formatPerOp(calls.baton)}; raw ${formatPerOp(calls.baseline)}`);
  log(
    `  time per call: baton ${formatCallTimes(engineSide.counter)}; raw ${formatCallTimes(rawSide.counter)}`,
  );
  return {
    bench: `turn overhead (${target.label})`,
    baseline: `${formatNs(baseline)}/turn`,
    candidate: `${formatNs(candidate)}/turn`,
    ...pairedFigures(result.paired, candidate / baseline),
    budget: { kind: 'max', value: 1.1 },
    values: { baseline: baseline / 1e6, candidate: candidate / 1e6, unit: 'ms/turn' },
    calls,
    latencies: result.latencies,
  };
}

function deposit(key: string, i: number) {
  const id = Account.ref(key).id;
  return {
    envelope: ingress(`dep-${key}-${i}`, id, 'deposit', { amount: 1 }),
    queueSeq: String(i),
  };
}

async function engineRound(
  side: Clients,
  tableName: string,
  key: string,
  ops: number,
): Promise<Sample> {
  const store = new DynamoStore({ client: side.dynamodb, tableName });
  const engine = createEngine({
    actors: [Account, Ledger],
    store,
    queue: noQueue,
    logger: silentLogger,
  });
  const id = Account.ref(key).id;
  // Creates the record and warms the cache. Each turn then runs as a worker's would after it
  // drained the turn before (the drain's send is not part of this benchmark).
  let drainedAt = await runTurn(engine, id, [deposit(key, 1)]);
  const latencies: number[] = [];
  const start = process.hrtime.bigint();
  for (let i = 2; i <= ops + 1; i++) {
    const t = process.hrtime.bigint();
    drainedAt = await runTurn(engine, id, [deposit(key, i)], { drainedAt });
    latencies.push(Number(process.hrtime.bigint() - t));
  }
  const ns = Number(process.hrtime.bigint() - start);
  await check(tableName, id, ops + 1);
  return { ns, ops, latencies };
}

async function rawRound(
  side: Clients,
  tableName: string,
  key: string,
  ops: number,
): Promise<Sample> {
  const id = Account.ref(key).id;
  let record = { ver: 0, balance: 0, deposits: 0, sentSeq: 0 };
  let page: OutcomePageState | undefined;
  const write = async (i: number) => {
    const now = Date.now();
    const next = {
      ver: record.ver + 1,
      balance: record.balance + 1,
      deposits: record.deposits + 1,
      sentSeq: record.sentSeq + 1,
    };
    const built = handBuilt(tableName, key, i, record.ver, next, now, page);
    await side.dynamodb.send(
      new TransactWriteItemsCommand({
        TransactItems: built.items,
        ClientRequestToken: randomUUID(),
      }),
    );
    record = next;
    page = built.page;
  };
  await write(1);
  const latencies: number[] = [];
  const start = process.hrtime.bigint();
  for (let i = 2; i <= ops + 1; i++) {
    const t = process.hrtime.bigint();
    await write(i);
    latencies.push(Number(process.hrtime.bigint() - t));
  }
  const ns = Number(process.hrtime.bigint() - start);
  await check(tableName, id, ops + 1);
  return { ns, ops, latencies };
}

/** The baseline actor's life id: the engine draws one at an actor's first commit. */
const LIFE = 'k3j9x2m1qa0z';

/**
 * What the engine writes for deposit `i` of `account/<key>`, as plain attribute values, with
 * the record's outcome page state before it (`page`, absent at the actor's first commit) and
 * after.
 */
function handBuilt(
  TableName: string,
  key: string,
  i: number,
  expectedVer: number,
  next: { ver: number; balance: number; deposits: number; sentSeq: number },
  now: number,
  page: OutcomePageState | undefined,
): { items: TransactWriteItem[]; page: OutcomePageState } {
  const id = `account/${key}`;
  const n = (value: number): AttributeValue => ({ N: String(value) });
  const s = (value: string): AttributeValue => ({ S: value });
  const envelope = {
    id: `${id}:${LIFE}.${next.sentSeq}`,
    from: id,
    seq: next.sentSeq,
    prev: next.sentSeq - 1,
    to: 'ledger/main',
    name: 'record',
    payload: { from: key, amount: 1 },
    sentAt: now,
  };
  const held = { actorId: id, seq: next.sentSeq, envelopes: [envelope], createdAt: now };
  const record: Item = {
    pk: s(`A#${id}`),
    sk: s('R'),
    ver: n(next.ver),
    life: s(LIFE),
    state: s(JSON.stringify({ balance: next.balance, deposits: next.deposits })),
    sv: n(1),
    inboxOffset: s(String(i)),
    marks: s('{}'),
    sentSeq: n(next.sentSeq),
    channels: s(JSON.stringify({ 'ledger/main': { seq: next.sentSeq, at: now } })),
    // The send, held in the record, which is in the outbox index while it holds it.
    outbox: s(JSON.stringify([held])),
    obPk: s('OUTBOX#0'),
    obAt: n(now),
  };
  const expiresAt = now + 14 * DAY;
  // The outcome, appended to the actor's outcome page (as `Store.readPagedOutcomes` keeps them):
  // the record says where its next outcomes go.
  const outcome = {
    key: `dep-${key}-${i}`,
    outcome: { ok: true as const, value: next.balance },
    expiresAt,
    sentAt: now,
  };
  // Pages begin at the actor's first commit; the commit that fills one (by the engine's byte
  // rules) closes it, and the next commit begins the next, putting it whole.
  const placed = appendOutcome(
    page ?? firstPageState(now),
    { ...outcome, actorId: id },
    DYNAMO_STORE_LIMITS,
  );
  const sk = s(`P#${String(placed.page).padStart(16, '0')}`);
  record.fmt = n(2);
  record.op = s(JSON.stringify(placed.state));
  const items: TransactWriteItem[] = [
    {
      Put: {
        TableName,
        Item: record,
        ...(expectedVer === 0
          ? {
              ConditionExpression: 'attribute_not_exists(#pk)',
              ExpressionAttributeNames: { '#pk': 'pk' },
            }
          : {
              ConditionExpression: '#ver = :expected AND #life = :life',
              ExpressionAttributeNames: { '#ver': 'ver', '#life': 'life' },
              ExpressionAttributeValues: { ':expected': n(expectedVer), ':life': s(LIFE) },
            }),
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    },
    // A commit that begins its page puts it whole, on one condition; later ones append to it.
    placed.begins
      ? {
          Put: {
            TableName,
            Item: {
              pk: s(`I#@${id}`),
              sk,
              pm: n(placed.sentAt),
              ttl: n(Math.ceil(expiresAt / 1000)),
              [`o:${outcome.key}`]: { M: { j: s(JSON.stringify(outcome)), e: n(expiresAt) } },
            },
            ConditionExpression: 'attribute_not_exists(#pk)',
            ExpressionAttributeNames: { '#pk': 'pk' },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          },
        }
      : {
          Update: {
            TableName,
            Key: { pk: s(`I#@${id}`), sk },
            UpdateExpression: 'SET #pm = :pm, #ttl = :ttl, #o0 = :o0',
            ConditionExpression: '(attribute_not_exists(#o0) OR #o0.#e <= :now)',
            ExpressionAttributeNames: {
              '#pm': 'pm',
              '#ttl': 'ttl',
              '#e': 'e',
              '#o0': `o:${outcome.key}`,
            },
            ExpressionAttributeValues: {
              ':pm': n(placed.sentAt),
              ':now': n(now),
              ':ttl': n(Math.ceil(expiresAt / 1000)),
              ':o0': { M: { j: s(JSON.stringify(outcome)), e: n(expiresAt) } },
            },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          },
        },
  ];
  return { items, page: placed.state };
}

/** Every deposit applied once: the record's count and version say so. */
async function check(TableName: string, id: string, turns: number): Promise<void> {
  const { Item } = await checker!.dynamodb.send(
    new GetItemCommand({
      TableName,
      Key: { pk: { S: `A#${id}` }, sk: { S: 'R' } },
      ConsistentRead: true,
    }),
  );
  const state = JSON.parse(Item?.state?.S ?? '{}') as { deposits?: number };
  if (state.deposits !== turns || Item?.ver?.N !== String(turns)) {
    throw new Error(`turn overhead: expected ${turns} deposits in ${id}, got ${state.deposits}`);
  }
}

/** Turns of each side's round in the shape check: its pages (about 6 turns each) roll over twice at least. */
const CHECK_TURNS = 20;

/**
 * Every transaction of a round of {@link CHECK_TURNS} turns on each side, across page
 * boundaries: the same items, each a put or an update of the same key attributes, the same
 * attributes, update and condition expressions, the same outcome page (counted from the
 * round's first) and the same bytes. Throws if not.
 */
async function checkSameItems(
  engineSide: Clients,
  rawSide: Clients,
  tableName: string,
  log: (line: string) => void,
): Promise<void> {
  const seen: { engine: TransactWriteItem[][]; raw: TransactWriteItem[][] } = {
    engine: [],
    raw: [],
  };
  const capture = (side: Clients, into: TransactWriteItem[][]) =>
    side.dynamodb.middlewareStack.add(
      (next) => async (args) => {
        const items = (args.input as { TransactItems?: TransactWriteItem[] }).TransactItems;
        if (items) into.push(items);
        return next(args);
      },
      { step: 'initialize', name: 'benchCapture' },
    );
  capture(engineSide, seen.engine);
  capture(rawSide, seen.raw);
  try {
    await engineRound(engineSide, tableName, 'shape-e', CHECK_TURNS - 1);
    await rawRound(rawSide, tableName, 'shape-r', CHECK_TURNS - 1);
  } finally {
    engineSide.dynamodb.middlewareStack.remove('benchCapture');
    rawSide.dynamodb.middlewareStack.remove('benchCapture');
  }
  if (seen.engine.length !== CHECK_TURNS || seen.raw.length !== CHECK_TURNS) {
    throw new Error(
      `turn overhead: expected ${CHECK_TURNS} transactions a side, got ${seen.engine.length} and ${seen.raw.length}`,
    );
  }
  const firstPage = { engine: pageOf(seen.engine[0]!), raw: pageOf(seen.raw[0]!) };
  for (let n = 0; n < CHECK_TURNS; n++) {
    const a = shape(seen.engine[n]!, firstPage.engine);
    const b = shape(seen.raw[n]!, firstPage.raw);
    if (a.signature !== b.signature || a.bytes !== b.bytes) {
      log(`  commit ${n + 1}: engine ${a.text}\n    ${a.signature}`);
      log(`  commit ${n + 1}: hand-built ${b.text}\n    ${b.signature}  (MISMATCH)`);
      throw new Error(`turn overhead: the baseline's transaction ${n + 1} is not the engine's`);
    }
  }
  const begun = seen.engine.flatMap((items, n) => (items.some(beginsPage) ? [n + 1] : []));
  if (begun.length < 3) {
    throw new Error(`turn overhead: the shape check crossed no two pages (begun at ${begun})`);
  }
  const first = shape(seen.engine[0]!, firstPage.engine);
  const second = shape(seen.engine[1]!, firstPage.engine);
  log(
    `  items: engine and hand-built alike in all ${CHECK_TURNS} transactions of a round ` +
      `(pages begun at commits ${begun.join(', ')}; commit 1: ${first.text}; commit 2: ${second.text})`,
  );
}

/** Throws unless both sides wrote as many items for as many write units. */
function sameWrites(engine: CallCounter, raw: CallCounter, when: string): void {
  if (engine.itemWrites !== raw.itemWrites || engine.wcu !== raw.wcu) {
    throw new Error(
      `turn overhead: in ${when} the baseline wrote ${raw.itemWrites} items for ${raw.wcu} WCU, ` +
        `the engine ${engine.itemWrites} items for ${engine.wcu} WCU`,
    );
  }
}

const isPage = (t: TransactWriteItem) =>
  (t.Put?.Item?.sk?.S ?? t.Update?.Key?.sk?.S ?? '').startsWith('P#');
const beginsPage = (t: TransactWriteItem) => t.Put !== undefined && isPage(t);

/** The outcome page a transaction writes to. */
function pageOf(items: readonly TransactWriteItem[]): number {
  const page = items.find(isPage);
  return Number((page?.Put?.Item?.sk?.S ?? page?.Update?.Key?.sk?.S ?? 'P#-1').slice(2));
}

function shape(items: readonly TransactWriteItem[], firstPage: number) {
  // A put's attributes; an update's key, the attributes it sets and the values it sets them to.
  const keyless = (name: string) => (name.startsWith('o:') ? 'o:<key>' : name);
  const written = items.map((t) => {
    const write = t.Put ?? t.Update;
    const names = Object.entries(write?.ExpressionAttributeNames ?? {}).map(
      ([alias, name]) => `${alias}=${keyless(name)}`,
    );
    const common = {
      kind: t.Put ? 'Put' : t.Update ? 'Update' : 'other',
      condition: write?.ConditionExpression,
      names: names.sort(),
      values: Object.keys(write?.ExpressionAttributeValues ?? {}).sort(),
      returns: write?.ReturnValuesOnConditionCheckFailure,
    };
    if (t.Put) {
      const attributes = Object.keys(t.Put.Item ?? {}).map(keyless);
      return { ...common, attributes: attributes.sort(), value: t.Put.Item };
    }
    const update = t.Update;
    const attributes = Object.keys(update?.Key ?? {}).sort();
    const value = [update?.Key, update?.ExpressionAttributeValues];
    return { ...common, attributes, update: update?.UpdateExpression, value };
  });
  const page = pageOf(items) - firstPage;
  // The record's outcome page state: the page it points to, the bytes it says that page holds.
  const op = items.find((t) => t.Put?.Item?.sk?.S === 'R')?.Put?.Item?.op?.S;
  const state = op === undefined ? undefined : (JSON.parse(op) as OutcomePageState);
  const signature = JSON.stringify({
    page,
    state: state && {
      page: state.page - firstPage,
      bytes: state.bytes,
      fields: Object.keys(state).sort(),
    },
    items: written.map(({ value: _, ...rest }) => rest),
  });
  const bytes = written.reduce((sum, item) => sum + JSON.stringify(item.value).length, 0);
  const conditions = items.filter(
    (t) => t.Put?.ConditionExpression ?? t.Update?.ConditionExpression,
  ).length;
  const kinds = written.map((item) => item.kind).join('+');
  return {
    signature,
    bytes,
    text: `${kinds} (${conditions} conditional, page +${page}), ${bytes} bytes`,
  };
}
