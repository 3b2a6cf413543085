/**
 * The key of a shared subscription: the query name and its args as canonical JSON (object keys
 * sorted, `undefined` members left out), so `{ a, b }` and `{ b, a }` share one subscription.
 */
export function canonicalKey(query: string, args: unknown): string {
  return `${query}\u0000${canonical(args)}`;
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) {
    return `[${value.map((item) => (item === undefined ? 'null' : canonical(item))).join(',')}]`;
  }
  if (typeof value === 'object' && value !== null) {
    const json = (value as { toJSON?: () => unknown }).toJSON;
    if (typeof json === 'function') return canonical(json.call(value));
    const members = Object.keys(value)
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
