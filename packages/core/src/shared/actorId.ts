/** Actor ids, `type/key`: the name of an actor every layer shares. */

/**
 * @example
 * actorId('account', 'alice'); // 'account/alice'
 */
export function actorId(type: string, key: string): string {
  return `${type}/${key}`;
}

/** Splits `type/key` at the first slash (keys may hold slashes). */
export function parseActorId(id: string): { type: string; key: string } | undefined {
  const slash = id.indexOf('/');
  if (slash <= 0 || slash === id.length - 1) return undefined;
  return { type: id.slice(0, slash), key: id.slice(slash + 1) };
}
