import { forEachAtMost } from '../../internal/forEachAtMost.ts';
import { RegistryAttr as A, shownPk, shownSk } from '../connectionsTable.ts';
import type { RegistryTable } from './RegistryTable.ts';

/** Deletes `removeAllOf` has in flight. */
const REMOVALS_AT_ONCE = 16;

/**
 * The messages whose write a connection was shown, answering a visible send re-sent under a key
 * whose outcome was already recorded (`V#<connection>` / `<idempotency key>`): a send re-sent
 * again under that key is answered `visible` without re-running the connection's queries. Kept
 * under the connection, apart from the pending requests, so that removing the connection finds
 * them and `PendingRequests.take` never reads them.
 *
 * @example
 * const shown = new ShownWrites(table, ttl);
 * if (!(await shown.has(connectionId, messageId))) await shown.add(connectionId, messageId);
 */
export class ShownWrites {
  /**
   * @param ttl the `ttl` (epoch seconds) to give an item written now
   */
  constructor(
    private readonly table: RegistryTable,
    private readonly ttl: () => number,
  ) {}

  /** Records that the connection was shown the write of message `idempotencyKey`. */
  async add(connectionId: string, idempotencyKey: string): Promise<void> {
    await this.table.put({
      [A.pk]: shownPk(connectionId),
      [A.sk]: shownSk(idempotencyKey),
      [A.key]: idempotencyKey,
      [A.ttl]: this.ttl(),
    });
  }

  /** Whether the connection was shown the write of message `idempotencyKey`. */
  async has(connectionId: string, idempotencyKey: string): Promise<boolean> {
    return (await this.table.get(shownPk(connectionId), shownSk(idempotencyKey))) !== undefined;
  }

  /** Forgets what the connection was shown. Idempotent. */
  async removeAllOf(connectionId: string): Promise<void> {
    const items = await this.table.query(shownPk(connectionId));
    await forEachAtMost(items, REMOVALS_AT_ONCE, async (item) => {
      await this.table.delete(item[A.pk] as string, item[A.sk] as string);
    });
  }
}
