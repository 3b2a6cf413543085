/**
 * Keeps an actor's record small however many peers it has. The record lists the sender marks
 * and channels of its most recent peers, at most {@link RECORD_PEERS} of each and never more
 * than fit its item; older ones move out into overflow marks, items of their own written in the
 * same commit, and are read back only when a message comes from (or goes to) a peer the record
 * no longer lists. A fan-in actor with 100,000 senders costs one small item per sender, not a
 * record that can no longer be written.
 */
import { jsonSize } from '../adapter/conflicts.ts';
import type { ChannelMark, OverflowKey, OverflowMark, SenderMark } from '../adapter/marks.ts';
import type { TurnStore } from '../adapter/ports.ts';
import type { ActorRecord } from '../adapter/storedRecords.ts';
import { RECORD_GAPS } from './channels.ts';

/** Peers of each kind (senders, targets) a record lists by default (`recordPeers`). */
export const RECORD_PEERS = 64;

/**
 * Most marks moved out for the count limit per message, so that a message sending to many new
 * targets stays one commit; the record shrinks back over the next messages. The item limit
 * gives no such slack: past it, marks move out whatever their number.
 */
export const MOVES_PER_MESSAGE = 64;

type Kind = OverflowMark['kind'];
type Entry = { readonly kind: Kind; readonly peer: string; readonly mark: SenderMark };

/** What {@link boundPeers} gives: the record, the marks it moved out, and its size. */
export interface Bounded {
  readonly record: ActorRecord;
  readonly moved: OverflowMark[];
  /** `jsonSize(record)`, measured once here for the caller's own checks. */
  readonly bytes: number;
}

/**
 * `record` with its peers bounded: the least recently used marks beyond `recordPeers`
 * (at most `moves` at a time), and then as many as it takes to fit
 * `maxItemBytes`, moved out. The moved marks are to be committed with the record; when there
 * are any, `overflowedAt` says so. A record that fits and lists few peers comes back as it is.
 */
export function boundPeers(
  record: ActorRecord,
  options: {
    readonly now: number;
    readonly retentionMs: number;
    readonly maxItemBytes: number;
    /** @default {@link RECORD_PEERS} */
    readonly recordPeers?: number;
    /** Most marks moved for the count limit. @default {@link MOVES_PER_MESSAGE} */
    readonly moves?: number;
  },
): Bounded {
  const { now, retentionMs, maxItemBytes } = options;
  const { recordPeers = RECORD_PEERS, moves = MOVES_PER_MESSAGE } = options;
  const peers = [
    ['sender', record.marks],
    ['channel', record.channels ?? {}],
  ] as const;
  const moving: Entry[] = [];
  for (const [kind, of] of peers) {
    // Counted without building a list: most records list few peers.
    let excess = -recordPeers;
    for (const _ in of) excess++;
    if (excess > 0) moving.push(...leastRecent(entries(kind, of), Math.min(excess, moves)));
  }
  // A mark with a long list of gaps lives in an item of its own: gaps never crowd the record.
  for (const peer in record.marks) {
    const mark = record.marks[peer]!;
    if ((mark.missing?.length ?? 0) <= RECORD_GAPS) continue;
    if (!moving.some((entry) => entry.kind === 'sender' && entry.peer === peer)) {
      moving.push({ kind: 'sender', peer, mark });
    }
  }
  let bounded = withMoved(record, moving, now, retentionMs);
  let bytes = jsonSize(bounded);
  if (bytes > maxItemBytes) {
    // Too large for an item: move the least recent marks of either kind until the record fits
    // (or none is left: the state alone is too large). Sizes are counted down per entry, then
    // measured again, since the last entry has no comma and `overflowedAt` may appear.
    const gone = new Set(moving.map(({ kind, peer }) => keyOf(kind, peer)));
    const rest = peers
      .flatMap(([kind, of]) => entries(kind, of))
      .filter(({ kind, peer }) => !gone.has(keyOf(kind, peer)));
    for (const entry of leastRecent(rest, rest.length)) {
      bytes -= jsonSize(entry.peer) + jsonSize(entry.mark) + 2;
      moving.push(entry);
      if (bytes > maxItemBytes) continue;
      bounded = withMoved(record, moving, now, retentionMs);
      bytes = jsonSize(bounded);
      if (bytes <= maxItemBytes) break;
    }
    bounded = withMoved(record, moving, now, retentionMs);
    bytes = jsonSize(bounded);
  }
  const expiresAt = now + retentionMs;
  const moved = moving.map(
    ({ kind, peer, mark }) => ({ kind, peer, mark, expiresAt }) as OverflowMark,
  );
  return { record: bounded, moved, bytes };
}

function entries(kind: Kind, of: Readonly<Record<string, SenderMark>> = {}): Entry[] {
  return Object.entries(of).map(([peer, mark]) => ({ kind, peer, mark }));
}

/** `record` without the marks `moved` names (of senders and channels), stamped `overflowedAt`. */
export function withoutMarks(
  record: ActorRecord,
  moved: readonly OverflowMark[],
  now: number,
  retentionMs: number,
): ActorRecord {
  const moving = moved.flatMap(({ kind, peer, mark }) =>
    kind === 'page' ? [] : [{ kind, peer, mark } as Entry],
  );
  return withMoved(record, moving, now, retentionMs);
}

/** `record` without the `moving` marks, stamped `overflowedAt` (dropped once it is stale). */
function withMoved(
  record: ActorRecord,
  moving: readonly Entry[],
  now: number,
  retentionMs: number,
): ActorRecord {
  const { overflowedAt } = record;
  // Most records move nothing and have no overflowedAt: they come back without a copy.
  if (moving.length === 0 && (overflowedAt === undefined || overflowedAt >= now - retentionMs)) {
    return record;
  }
  const { overflowedAt: _, ...rest } = record;
  if (moving.length === 0) return rest;
  const gone = new Set(moving.map(({ kind, peer }) => keyOf(kind, peer)));
  const kept = (kind: Kind, of: Readonly<Record<string, SenderMark>> = {}) => {
    const out: Record<string, SenderMark> = {};
    for (const peer in of) if (!gone.has(keyOf(kind, peer))) out[peer] = of[peer]!;
    return out;
  };
  return {
    ...rest,
    marks: kept('sender', record.marks),
    channels: kept('channel', record.channels),
    overflowedAt: now,
  };
}

/** The `count` entries least recently used, oldest first (one pass each for a few). */
function leastRecent(list: readonly Entry[], count: number): Entry[] {
  if (count <= 0) return [];
  if (count > 4) return [...list].sort((a, b) => a.mark.at - b.mark.at).slice(0, count);
  const picked: Entry[] = [];
  for (let n = 0; n < count; n++) {
    let oldest: Entry | undefined;
    for (const entry of list) {
      if (!picked.includes(entry) && (!oldest || entry.mark.at < oldest.mark.at)) oldest = entry;
    }
    if (oldest) picked.push(oldest);
  }
  return picked;
}

const keyOf = (kind: OverflowMark['kind'], peer: string) => `${kind}\u0000${peer}`;

/**
 * The marks of peers a turn's record does not list: read from the store at most once per turn,
 * and merged with the ones this turn moved out (which the store holds only once they commit).
 */
export class OverflowLookup {
  /** Marks read from the store or moved out this turn (`null`: none stored); made on first use. */
  #known: Map<string, OverflowMark | null> | undefined;
  readonly #store: TurnStore;
  readonly #actorId: string;
  /** Whether the store may hold live overflow marks of this actor: else nothing is read. */
  readonly #live: boolean;
  readonly #channelSince: number;
  readonly #markSince: number;

  /** `base` is the record the turn read; `retentionMs` the engine's mark retention. */
  constructor(store: TurnStore, base: ActorRecord, now: number, retentionMs: number) {
    this.#store = store;
    this.#actorId = base.id;
    this.#channelSince = now - retentionMs / 2;
    this.#markSince = now - retentionMs;
    // Marks that moved out longer than the retention ago are older still: past use.
    this.#live = (base.overflowedAt ?? Number.NEGATIVE_INFINITY) >= now - retentionMs;
  }

  /**
   * Reads, in one store call, the marks of `keys` the record does not list and this turn has not
   * seen: a batch's senders up front, so each message need not read its own.
   */
  async load(record: ActorRecord, keys: readonly OverflowKey[]): Promise<void> {
    if (!this.#live) return;
    const wanted = new Map<string, OverflowKey>();
    for (const key of keys) {
      const id = keyOf(key.kind, key.peer);
      if (!listed(record, key) && !this.#known?.has(id)) wanted.set(id, key);
    }
    if (wanted.size === 0) return;
    const found = await this.#store.readOverflow(this.#actorId, [...wanted.values()]);
    for (const id of wanted.keys()) this.#remember(id, null);
    for (const mark of found) this.#remember(keyOf(mark.kind, mark.peer), mark);
  }

  /**
   * The receiver's mark for `sender`: the record's, else its overflow mark — unless idle past the
   * retention, when it is forgotten (the next commit prunes it, see `pruneMarks`): a sender
   * whose record expired after `ctx.halt()` starts its sequence numbers over.
   */
  sender(record: ActorRecord, sender: string): Promise<SenderMark | undefined> {
    return this.#since(record, { kind: 'sender', peer: sender }, this.#markSince);
  }

  /**
   * The sender's channel to `target`: the record's, else its overflow mark unless idle past
   * half the retention (when the record would have pruned it, see `pruneChannels`).
   */
  channel(record: ActorRecord, target: string): Promise<ChannelMark | undefined> {
    return this.#since(record, { kind: 'channel', peer: target }, this.#channelSince);
  }

  /** The state pages of `ids` (see `StatePages` in contextSlots.ts): this turn's own, else the store's. */
  async pages(ids: readonly string[]): Promise<Map<string, unknown>> {
    const missing = ids.filter((id) => !this.#known?.has(keyOf('page', id)));
    if (missing.length > 0) {
      const keys = missing.map((peer) => ({ kind: 'page' as const, peer }));
      const found = await this.#store.readOverflow(this.#actorId, keys);
      for (const id of missing) this.#remember(keyOf('page', id), null);
      for (const page of found) this.#remember(keyOf('page', page.peer), page);
    }
    const pages = new Map<string, unknown>();
    for (const id of ids) {
      const page = this.#known?.get(keyOf('page', id));
      if (page) pages.set(id, page.mark);
    }
    return pages;
  }

  /** Marks this turn moved out: found here from now on, committed or not. */
  moved(marks: readonly OverflowMark[]): void {
    for (const mark of marks) this.#remember(keyOf(mark.kind, mark.peer), mark);
  }

  #remember(id: string, mark: OverflowMark | null): void {
    this.#known ??= new Map();
    this.#known.set(id, mark);
  }

  /** The mark of `key`, the record's else its overflow mark, unless last used before `since`. */
  async #since(
    record: ActorRecord,
    key: OverflowKey,
    since: number,
  ): Promise<SenderMark | undefined> {
    const found = listed(record, key) ?? (await this.#find(record, key));
    return found && found.at >= since ? found : undefined;
  }

  async #find(record: ActorRecord, key: OverflowKey): Promise<SenderMark | undefined> {
    await this.load(record, [key]);
    const found = this.#known?.get(keyOf(key.kind, key.peer));
    return found && found.kind !== 'page' ? found.mark : undefined;
  }
}

/** The mark `record` itself lists for a peer (none for a page). */
export function listed(record: ActorRecord, key: OverflowKey): SenderMark | undefined {
  if (key.kind === 'page') return undefined;
  return key.kind === 'sender' ? record.marks[key.peer] : record.channels?.[key.peer];
}
