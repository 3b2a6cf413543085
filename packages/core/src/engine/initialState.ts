/**
 * Whether a handling left its actor in its initial state: what decides whether a record it
 * revives stays a new one, and whether a state its schema refuses is `initial()`'s fault.
 */
import type { AnyActorDefinition } from '../actor.ts';
import { parseActorId } from '../adapter/envelope.ts';
import type { ActorRecord } from '../adapter/storedRecords.ts';
import { asJson } from './asJson.ts';

/**
 * Whether a handling left its actor as a new one: in its initial state, with no timer set and no
 * page of state written.
 */
export function leftAsNew(
  definition: AnyActorDefinition,
  current: ActorRecord,
  state: unknown,
  effects: { readonly timers: ReadonlyMap<string, unknown>; readonly pages: readonly unknown[] },
): boolean {
  if (effects.timers.size > 0 || effects.pages.length > 0) return false;
  return sameAsInitial(definition, current, state);
}

/** Whether `state` (as JSON) is what `initial()` returns for `current`'s key. */
export function isInitial(
  definition: AnyActorDefinition,
  current: ActorRecord,
  state: unknown,
): boolean {
  try {
    return sameAsInitial(definition, current, state);
  } catch {
    return false;
  }
}

/** {@link isInitial}, but an `initial()` that throws throws here. */
function sameAsInitial(definition: AnyActorDefinition, current: ActorRecord, state: unknown) {
  const initial = definition.initial(parseActorId(current.id)!.key);
  return JSON.stringify(state) === JSON.stringify(asJson(initial));
}
