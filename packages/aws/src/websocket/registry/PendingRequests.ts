import { forEachAtMost } from '../../internal/forEachAtMost.ts';
import { RegistryAttr as A, pendingPk, pendingPrefix, pendingSk } from '../connectionsTable.ts';
import type { Item, RegistryTable } from './RegistryTable.ts';

/** Deletes one `take` has in flight: one outcome may find many requests waiting for it. */
const TAKES_AT_ONCE = 16;

/**
 * A request waiting for its message's outcome.
 *
 * @example
 * const pending: PendingItem = {
 *   connectionId: 'abc=', requestId: 'r1', kind: 'ask', actorId: 'account/alice',
 *   name: 'deposit', fingerprint: messageFingerprint('deposit', { amount: 5 }),
 * };
 */
export interface PendingItem {
  readonly connectionId: string;
  readonly requestId: string;
  readonly kind: 'ask' | 'visible';
  readonly actorId: string;
  /** The request's message name, for the error when its key was reused. */
  readonly name?: string | undefined;
  /**
   * The request's `messageFingerprint`: two requests may wait under one key with different
   * messages (the queue keeps only the first), and only the one matching the outcome's gets it.
   * Absent on items written without it, which are answered with the outcome as before.
   */
  readonly fingerprint?: string | undefined;
}

/**
 * The requests (`ask`, visible `send`) waiting for the outcome of a message, by its idempotency
 * key (`R#<idempotency key>` / `<connection>#<request>`).
 *
 * @example
 * const pending = new PendingRequests(table, ttl);
 * await pending.put(idempotencyKey, { connectionId, requestId: 'r1', kind: 'ask', actorId });
 * const waiting = await pending.take(idempotencyKey); // once its outcome is recorded
 */
export class PendingRequests {
  /**
   * @param ttl the `ttl` (epoch seconds) to give an item written now
   */
  constructor(
    private readonly table: RegistryTable,
    private readonly ttl: () => number,
  ) {}

  /** Records a request that waits for the outcome of message `idempotencyKey`. */
  async put(idempotencyKey: string, pending: PendingItem): Promise<void> {
    await this.table.put({
      [A.pk]: pendingPk(idempotencyKey),
      [A.sk]: pendingSk(pending.connectionId, pending.requestId),
      [A.connectionId]: pending.connectionId,
      [A.requestId]: pending.requestId,
      [A.kind]: pending.kind,
      [A.actorId]: pending.actorId,
      [A.name]: pending.name,
      [A.fingerprint]: pending.fingerprint,
      [A.ttl]: this.ttl(),
      // When it was recorded, to tell the oldest of a connection's requests under one key.
      [A.at]: Date.now(),
    });
  }

  async delete(idempotencyKey: string, connectionId: string, requestId: string): Promise<void> {
    await this.table.delete(pendingPk(idempotencyKey), pendingSk(connectionId, requestId));
  }

  /**
   * The requests `connectionId` has waiting for `idempotencyKey` past the newest `keep`, oldest
   * first (by when each was recorded; one an earlier release recorded counts as oldest).
   */
  async beyond(idempotencyKey: string, connectionId: string, keep: number): Promise<PendingItem[]> {
    const items = await this.table.query(pendingPk(idempotencyKey), pendingPrefix(connectionId));
    const at = (item: Item) => (typeof item[A.at] === 'number' ? (item[A.at] as number) : 0);
    items.sort((a, b) => at(a) - at(b));
    return items.slice(0, Math.max(0, items.length - keep)).map(toPending);
  }

  /**
   * Removes and returns the requests waiting for `idempotencyKey`. Each is deleted on condition
   * that it still exists, so of two handlers taking it at once only one answers it.
   */
  async take(idempotencyKey: string): Promise<PendingItem[]> {
    const items = await this.table.query(pendingPk(idempotencyKey));
    const taken: PendingItem[] = [];
    await forEachAtMost(items, TAKES_AT_ONCE, async (item) => {
      const deleted = await this.table.delete(item[A.pk] as string, item[A.sk] as string, {
        expression: 'attribute_exists(#pk)',
        names: { '#pk': A.pk },
      });
      if (deleted) taken.push(toPending(item));
    });
    return taken;
  }
}

function toPending(item: Item): PendingItem {
  return {
    connectionId: item[A.connectionId] as string,
    requestId: item[A.requestId] as string,
    kind: item[A.kind] as PendingItem['kind'],
    actorId: item[A.actorId] as string,
    name: item[A.name] as string | undefined,
    fingerprint: item[A.fingerprint] as string | undefined,
  };
}
