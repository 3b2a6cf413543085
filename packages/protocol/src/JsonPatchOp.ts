/** A JSON value, as `JSON.parse` returns it. */
export type JsonValue =
  | null
  | boolean
  | number
  | string
  | readonly JsonValue[]
  | { readonly [key: string]: JsonValue };

/**
 * One operation of a JSON Patch (the RFC 6902 subset Baton uses: add, remove, replace).
 * `path` is a JSON Pointer (RFC 6901): `''` is the whole document, `/items/0/name` a member;
 * `~1` stands for `/` and `~0` for `~` inside a key. `add` on an array inserts (`-` appends).
 *
 * @example
 * const ops: JsonPatchOp[] = [
 *   { op: 'replace', path: '/balance', value: 30 },
 *   { op: 'add', path: '/history/0', value: { amount: 5 } },
 *   { op: 'remove', path: '/pending' },
 * ];
 */
export type JsonPatchOp =
  | { readonly op: 'add'; readonly path: string; readonly value: JsonValue }
  | { readonly op: 'remove'; readonly path: string }
  | { readonly op: 'replace'; readonly path: string; readonly value: JsonValue };
