import { RegistryAttr as A, CONNECTION_SK, connectionPk, ownerPk } from '../connectionsTable.ts';
import { type Item, itemKey, parseJson, type RegistryTable } from './RegistryTable.ts';

/**
 * How old a user's count of a connection must be before {@link Connections.owned} may take it
 * for a leftover when its connection item is missing: a connect still registering has the one
 * without the other for a moment.
 */
const LEFTOVER_MS = 60_000;

/**
 * A connection as the registry holds it.
 *
 * @example
 * const connection: ConnectionItem = { connectionId: 'abc=', identity: { user: 'alice' }, expiresAt, endpoint };
 */
export interface ConnectionItem {
  readonly connectionId: string;
  readonly identity: unknown;
  /** The lease: the connection counts as gone after this (epoch ms) unless renewed. */
  readonly expiresAt: number;
  /** When its identity ends (epoch ms; the auth hook's `validUntil`): it is closed then. */
  readonly validUntil?: number;
  /** The user it counts against (`connectionOwner`); none for an anonymous connection. */
  readonly owner?: string;
  /** The management API endpoint to push to, `https://{domain}/{stage}`. */
  readonly endpoint: string;
}

/**
 * The connection items (`C#<connection>` / `C`): who is connected, until when, and where to
 * push to. Their subscriptions are {@link Subscriptions}'.
 *
 * @example
 * const connections = new Connections(table, ttl);
 * await connections.put({ connectionId, identity, expiresAt, endpoint });
 */
export class Connections {
  /**
   * @param ttl the `ttl` (epoch seconds) to give an item written now
   * @param now the registry's clock
   */
  constructor(
    private readonly table: RegistryTable,
    private readonly ttl: () => number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Registers the connection; a user's is also counted under its owner ({@link owned}). */
  async put(connection: ConnectionItem): Promise<void> {
    const { connectionId, identity, expiresAt, validUntil, endpoint, owner } = connection;
    const ttl = this.ttl();
    await Promise.all([
      owner === undefined
        ? undefined
        : this.table.put({
            [A.pk]: ownerPk(owner),
            [A.sk]: connectionId,
            [A.at]: this.now(),
            [A.ttl]: ttl,
          }),
      this.table.put({
        [A.pk]: connectionPk(connectionId),
        [A.sk]: CONNECTION_SK,
        [A.identity]: identity === undefined ? undefined : JSON.stringify(identity),
        [A.expiresAt]: expiresAt,
        [A.validUntil]: validUntil,
        [A.endpoint]: endpoint,
        [A.owner]: owner,
        [A.ttl]: ttl,
      }),
    ]);
  }

  /**
   * How many connections the user `owner` holds: those counted under it (a lapsed one until the
   * sweeper removes it), past TTLs DynamoDB has not acted on yet left out. Past `max`, each count
   * is checked against its connection: one whose connection is gone (left by a removal or a
   * registration that stopped half-way) and that is older than {@link LEFTOVER_MS} is deleted,
   * and not counted.
   */
  async owned(owner: string, max: number): Promise<number> {
    const now = this.now();
    const items = await this.table.query(ownerPk(owner));
    const counted = items.filter((item) => (item[A.ttl] as number) * 1000 > now);
    if (counted.length <= max) return counted.length;
    const registered = await this.getMany(counted.map((item) => String(item[A.sk])));
    const leftovers = counted.filter(
      (item) =>
        !registered.has(String(item[A.sk])) && ((item[A.at] as number) ?? 0) < now - LEFTOVER_MS,
    );
    await Promise.all(
      leftovers.map((item) => this.table.delete(ownerPk(owner), String(item[A.sk]))),
    );
    return counted.length - leftovers.length;
  }

  async get(connectionId: string): Promise<ConnectionItem | undefined> {
    const item = await this.table.get(connectionPk(connectionId), CONNECTION_SK);
    return item && toConnection(connectionId, item);
  }

  /**
   * The connections among `connectionIds` that are registered, by id: one `BatchGetItem` per
   * 100, where `get` would make a call for each.
   */
  async getMany(connectionIds: readonly string[]): Promise<Map<string, ConnectionItem>> {
    const keys = connectionIds.map((id) => ({ pk: connectionPk(id), sk: CONNECTION_SK }));
    const items = await this.table.getMany(keys);
    const found = new Map<string, ConnectionItem>();
    for (const id of connectionIds) {
      const item = items.get(itemKey(connectionPk(id), CONNECTION_SK));
      if (item) found.set(id, toConnection(id, item));
    }
    return found;
  }

  /** Moves the lease to `expiresAt`; false if the connection is not registered (any more). */
  async renew(connectionId: string, expiresAt: number): Promise<boolean> {
    return this.table.update(
      connectionPk(connectionId),
      CONNECTION_SK,
      { expression: 'SET #e = :e', names: { '#e': A.expiresAt }, values: { ':e': expiresAt } },
      // Without it the update would create a lease-only item for a connection already gone.
      { expression: 'attribute_exists(#pk)', names: { '#pk': A.pk } },
    );
  }

  /**
   * Counts a frame of the connection in the one-second window `second` (epoch seconds) and
   * returns its number in the window, from 1 — past any cap: the session tells a burst from a
   * flood by it — or 0 for a connection gone. One conditional write per frame, refused ones
   * too; the first frame of a new window makes two (its count in the old window fails, then it
   * starts the new one), three if a frame handled side by side started it first.
   */
  async countFrame(connectionId: string, second: number): Promise<number> {
    const pk = connectionPk(connectionId);
    const countIn = async () => {
      const counted = await this.table.updateIf(
        pk,
        CONNECTION_SK,
        { expression: 'ADD #n :one', names: { '#n': A.frames }, values: { ':one': 1 } },
        {
          // A frame of a second already past (handled late, beside a newer one) counts in the
          // newer window.
          expression: 'attribute_exists(#pk) AND #s >= :s',
          names: { '#pk': A.pk, '#s': A.frameSecond },
          values: { ':s': second },
        },
      );
      return counted?.[A.frames] as number | undefined;
    };
    const counted = await countIn();
    if (counted !== undefined) return counted;
    const started = await this.table.update(
      pk,
      CONNECTION_SK,
      {
        expression: 'SET #s = :s, #n = :one',
        names: { '#s': A.frameSecond, '#n': A.frames },
        values: { ':s': second, ':one': 1 },
      },
      {
        expression: 'attribute_exists(#pk) AND (attribute_not_exists(#s) OR #s < :s)',
        names: { '#pk': A.pk, '#s': A.frameSecond },
        values: { ':s': second },
      },
    );
    if (started) return 1;
    // A frame of the same second, handled side by side, started its count first: count in it.
    return (await countIn()) ?? 0;
  }

  /**
   * Connections whose lease lapsed before `now`, or whose identity ended by then (with its end):
   * a scan, for the periodic sweeper.
   */
  async expired(now: number): Promise<Array<{ connectionId: string; validUntil?: number }>> {
    const items = await this.table.scan(
      {
        expression: '#sk = :c AND (#e < :now OR #v <= :now)',
        names: { '#sk': A.sk, '#e': A.expiresAt, '#v': A.validUntil, '#pk': A.pk },
        values: { ':c': CONNECTION_SK, ':now': now },
      },
      '#pk, #v',
    );
    return items.map((item) => ({
      connectionId: String(item[A.pk]).slice(2),
      ...(item[A.validUntil] === undefined ? {} : { validUntil: item[A.validUntil] as number }),
    }));
  }

  /** Deletes the connection item, and its owner's count of it. Idempotent. */
  async remove(connectionId: string): Promise<void> {
    const removed = await this.table.take(connectionPk(connectionId), CONNECTION_SK);
    const owner = removed?.[A.owner];
    if (typeof owner === 'string') await this.table.delete(ownerPk(owner), connectionId);
  }
}

function toConnection(connectionId: string, item: Item): ConnectionItem {
  return {
    connectionId,
    identity: parseJson(item[A.identity]),
    expiresAt: item[A.expiresAt] as number,
    ...(item[A.validUntil] === undefined ? {} : { validUntil: item[A.validUntil] as number }),
    ...(item[A.owner] === undefined ? {} : { owner: item[A.owner] as string }),
    endpoint: item[A.endpoint] as string,
  };
}
