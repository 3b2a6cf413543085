/** Values as they read back from storage, where everything is JSON. */

/** A value as it reads back from storage: through JSON (throws on a BigInt or a cycle). */
export function asJson(value: unknown): unknown {
  const text = JSON.stringify(value);
  return text === undefined ? undefined : JSON.parse(text);
}
