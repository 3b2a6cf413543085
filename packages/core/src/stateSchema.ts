/**
 * What an actor's `state` schema may declare: state is kept as JSON, which stores a Map or a Set
 * as `{}`, its entries lost, and a Date as its ISO string. A schema declaring one (`z.map()`,
 * `z.set()`, `z.date()`, `z.coerce.date()` too) describes state that no turn can commit, or that
 * its handlers read back as another type than they wrote. The definition is refused at once,
 * naming where, rather than messages kept as dead letters later. Zod's schemas are read through
 * their definitions (`_zod.def`), classic and mini alike: core imports nothing of zod at run time.
 */
import { invalidArgument } from './errors.ts';

/** The parts of a zod 4 definition that hold schemas, and where each sits in the value. */
interface ZodDef {
  readonly type?: unknown;
  /** An object's members, by key. */
  readonly shape?: Record<string, unknown>;
  /** Any element of an array, a record's or an object's other members, a tuple's rest. */
  readonly element?: unknown;
  readonly valueType?: unknown;
  readonly catchall?: unknown;
  readonly rest?: unknown;
  /** A tuple's elements, by index. */
  readonly items?: readonly unknown[];
  /** Schemas of the same value: a union's options, an intersection's sides, a wrapper's inner. */
  readonly options?: readonly unknown[];
  readonly left?: unknown;
  readonly right?: unknown;
  readonly innerType?: unknown;
  readonly in?: unknown;
  readonly out?: unknown;
  readonly getter?: () => unknown;
}

/** What each kind of value JSON cannot keep becomes, and what to declare instead. */
const KINDS = {
  map: { name: 'Map', becomes: 'as {}, its entries lost', instead: 'a record (z.record)' },
  set: { name: 'Set', becomes: 'as {}, its entries lost', instead: 'an array (z.array)' },
  date: {
    name: 'Date',
    becomes: 'as its ISO string, which handlers would read back',
    instead: 'a string (z.iso.datetime()) or epoch milliseconds (z.number())',
  },
} as const;

type Kind = keyof typeof KINDS;

/**
 * Throws INVALID_ARGUMENT if `schema` declares a Map, a Set or a Date anywhere (`z.map()`,
 * `z.set()`, `z.date()`), naming the path (`*` for any element or member).
 *
 * @example
 * checkStateSchema('tagger', z.object({ tags: z.array(z.string()) })); // passes
 */
export function checkStateSchema(actor: string, schema: unknown): void {
  const found = declaredCollection(schema, ['state'], new Set());
  if (!found) return;
  const path = found.path.join('.');
  const { name, becomes, instead } = KINDS[found.kind];
  throw invalidArgument(
    `actor "${actor}": its state schema declares a ${name} at ${path} (z.${found.kind}()), but state is kept as JSON, which stores a ${name} ${becomes}: declare ${instead} instead`,
    { path, kind: name },
  );
}

function declaredCollection(
  schema: unknown,
  path: readonly string[],
  seen: Set<unknown>,
): { readonly path: readonly string[]; readonly kind: Kind } | undefined {
  const def = (schema as { _zod?: { def?: ZodDef } } | null)?._zod?.def;
  if (typeof def !== 'object' || def === null || seen.has(schema)) return undefined;
  seen.add(schema);
  if (def.type === 'map' || def.type === 'set' || def.type === 'date') {
    return { path, kind: def.type };
  }
  const inner: [unknown, readonly string[]][] = [];
  try {
    // A recursive schema's members are getters, and z.lazy() a function: both run here.
    for (const [key, member] of Object.entries(def.shape ?? {})) {
      inner.push([member, [...path, key]]);
    }
    for (const [i, item] of (def.items ?? []).entries()) inner.push([item, [...path, String(i)]]);
    for (const member of [def.element, def.valueType, def.catchall, def.rest]) {
      inner.push([member, [...path, '*']]);
    }
    const sameValue = [...(def.options ?? []), def.left, def.right, def.innerType, def.in, def.out];
    for (const same of sameValue) inner.push([same, path]);
    if (typeof def.getter === 'function') inner.push([def.getter(), path]);
  } catch {
    // A getter that cannot run yet: its part is left unchecked.
  }
  for (const [s, at] of inner) {
    const found = declaredCollection(s, at, seen);
    if (found) return found;
  }
  return undefined;
}
