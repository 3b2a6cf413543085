/**
 * The index from an actor id to the query instances that read it: a change of that actor marks
 * exactly these instances dirty. An actor with no dependents leaves no entry behind.
 *
 * @example
 * const index = new DependencyIndex<string>();
 * index.add('account/alice', 'totalBalance#1');
 * index.dependents('account/alice'); // Set { 'totalBalance#1' }
 */
export class DependencyIndex<T> {
  readonly #byActor = new Map<string, Set<T>>();

  /** The number of actors something depends on. */
  get size(): number {
    return this.#byActor.size;
  }

  add(actorId: string, dependent: T): void {
    const set = this.#byActor.get(actorId);
    if (set) set.add(dependent);
    else this.#byActor.set(actorId, new Set([dependent]));
  }

  remove(actorId: string, dependent: T): void {
    const set = this.#byActor.get(actorId);
    if (!set) return;
    set.delete(dependent);
    if (set.size === 0) this.#byActor.delete(actorId);
  }

  dependents(actorId: string): ReadonlySet<T> | undefined {
    return this.#byActor.get(actorId);
  }

  has(actorId: string, dependent: T): boolean {
    return this.#byActor.get(actorId)?.has(dependent) ?? false;
  }
}
