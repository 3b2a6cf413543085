/**
 * The index from an actor id to the query instances that read it: a change of that actor marks
 * exactly these instances dirty. An actor with no dependents leaves no entry behind. It counts
 * its entries (one per actor and dependent), in all and by the group `groupOf` gives a
 * dependent: what it holds in memory, and whose.
 *
 * @example
 * const index = new DependencyIndex<string>();
 * index.add('account/alice', 'totalBalance#1');
 * index.dependents('account/alice'); // Set { 'totalBalance#1' }
 */
export class DependencyIndex<T> {
  readonly #byActor = new Map<string, Set<T>>();
  readonly #groupOf: (dependent: T) => string;
  readonly #byGroup = new Map<string, number>();
  #entries = 0;

  constructor(groupOf: (dependent: T) => string = () => '') {
    this.#groupOf = groupOf;
  }

  /** The number of actors something depends on. */
  get size(): number {
    return this.#byActor.size;
  }

  /** The number of (actor, dependent) entries. */
  get entries(): number {
    return this.#entries;
  }

  /** The number of entries whose dependent is in `group`. */
  entriesOf(group: string): number {
    return this.#byGroup.get(group) ?? 0;
  }

  add(actorId: string, dependent: T): void {
    const set = this.#byActor.get(actorId);
    if (set?.has(dependent)) return;
    if (set) set.add(dependent);
    else this.#byActor.set(actorId, new Set([dependent]));
    this.#count(dependent, 1);
  }

  remove(actorId: string, dependent: T): void {
    const set = this.#byActor.get(actorId);
    if (!set?.delete(dependent)) return;
    if (set.size === 0) this.#byActor.delete(actorId);
    this.#count(dependent, -1);
  }

  #count(dependent: T, by: 1 | -1): void {
    this.#entries += by;
    const group = this.#groupOf(dependent);
    const left = (this.#byGroup.get(group) ?? 0) + by;
    if (left === 0) this.#byGroup.delete(group);
    else this.#byGroup.set(group, left);
  }

  dependents(actorId: string): ReadonlySet<T> | undefined {
    return this.#byActor.get(actorId);
  }

  has(actorId: string, dependent: T): boolean {
    return this.#byActor.get(actorId)?.has(dependent) ?? false;
  }
}
