/**
 * The type of a value once it is written as JSON and read back, as a reply, a step's result or
 * an output is: what `JSON.parse(JSON.stringify(value))` gives.
 */

/** What JSON leaves out of an object (and writes as `null` in an array), with `undefined`. */
type LeftOut = symbol | ((...args: never[]) => unknown);

/** Whether `T` is `any`. */
type IsAny<T> = 0 extends 1 & T ? true : false;

/** An object written as `{}`, its entries lost: what a Map or a Set becomes. */
type EmptyObject = Record<string, never>;

/**
 * `T` as it reads back from JSON: a Date (anything with a `toJSON`) as what its `toJSON` returns
 * (a Date's ISO string), a Map or a Set as an empty object, an object without its members that
 * are `undefined`, functions or symbols (a member that may be `undefined` optional), an array
 * with `null` for those, a BigInt as `never` (JSON refuses it). Plain data — strings, numbers,
 * booleans, `null`, objects and arrays of them, unions of those — reads back as its own type.
 * `any` and `unknown` stay as they are; so does an `undefined` or `void` on its own (a reply of
 * a handler that returns nothing).
 *
 * @example
 * type A = JsonOf<{ at: Date; tags: Set<string>; note?: string; run: () => void }>;
 * // { at: string; tags: Record<string, never>; note?: string }
 */
export type JsonOf<T> =
  IsAny<T> extends true
    ? T
    : unknown extends T
      ? T
      : T extends string | number | boolean | null | undefined
        ? T
        : T extends void
          ? T
          : T extends bigint
            ? never
            : T extends { toJSON(): infer J }
              ? JsonOf<J>
              : T extends ReadonlyMap<unknown, unknown> | ReadonlySet<unknown>
                ? EmptyObject
                : T extends symbol | ((...args: never[]) => unknown)
                  ? undefined
                  : T extends readonly unknown[]
                    ? { [K in keyof T]: JsonElement<T[K]> }
                    : T extends object
                      ? JsonObject<T>
                      : never;

/** A member of an array: what JSON leaves out of an object is `null` in an array. */
type JsonElement<T> =
  IsAny<T> extends true ? T : T extends void ? null : T extends LeftOut ? null : JsonOf<T>;

/** The members JSON keeps, required where the member cannot be `undefined`, else optional. */
type JsonObject<T> = Flat<
  {
    [K in keyof T as Kept<K, T[K]> extends 'required' ? K : never]: JsonOf<T[K]>;
  } & {
    [K in keyof T as Kept<K, T[K]> extends 'optional' ? K : never]?: JsonOf<
      Exclude<T[K], undefined>
    >;
  }
>;

/** Whether JSON keeps a member `K` of type `V`: always, when it may be undefined, or never. */
type Kept<K, V> = K extends symbol
  ? 'dropped'
  : IsAny<V> extends true
    ? 'required'
    : unknown extends V
      ? 'required'
      : [V] extends [undefined]
        ? 'dropped'
        : [V] extends [LeftOut]
          ? 'dropped'
          : undefined extends V
            ? 'optional'
            : 'required';

/** One object type of an intersection of them, as the editor shows it. */
type Flat<T> = { [K in keyof T]: T[K] };
