/**
 * Freezes `value` and every object and array inside it, and returns it: code that later changes
 * any of them throws (in strict mode, as modules are) instead of changing it quietly. An object
 * frozen already is taken as frozen through and through, so shared parts are walked once.
 *
 * @example
 * const kept = deepFreeze({ state: { n: 1 } });
 * kept.state.n = 2; // throws TypeError: Cannot assign to read only property 'n'
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  return value;
}
