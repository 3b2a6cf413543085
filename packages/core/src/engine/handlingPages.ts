import type { StatePages } from '../contextSlots.ts';
import type { TurnEngine } from './createEngine.ts';
import type { HandlerEffects } from './handlerEffects.ts';
import { historyBytes, PAGE_EXPIRES_AT } from './statePages.ts';

/**
 * The `StatePages` of one handling at time `now`, on `store`: pages put or dropped go to its
 * `effects`, to be written with its commit; `read` reads them back.
 */
export function handlingPages(
  effects: HandlerEffects,
  now: number,
  store: TurnEngine['store'],
  read: StatePages['read'],
): StatePages {
  return {
    keepBytes: historyBytes(store.limits),
    put(id, value) {
      effects.pages.push({ kind: 'page', peer: id, mark: value, expiresAt: PAGE_EXPIRES_AT });
    },
    drop(id) {
      effects.pages.push({ kind: 'page', peer: id, mark: null, expiresAt: now });
    },
    read,
  };
}
