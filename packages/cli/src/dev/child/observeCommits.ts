import type { Commit, Store } from '@baton/core/adapter';

/**
 * The store as it is, except that `onCommit` sees every commit once it is applied (and, on the
 * embedded backend with a data directory, journaled): what the turn log and the crash switch
 * hang on.
 */
export function observeCommits(store: Store, onCommit: (commit: Commit) => void): Store {
  return new Proxy(store, {
    get(target, property) {
      if (property === 'commit') {
        return async (commit: Commit) => {
          await target.commit(commit);
          onCommit(commit);
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
