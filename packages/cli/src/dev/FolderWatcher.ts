import { type FSWatcher, watch } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Watches the folders that hold a set of files, each one on its own (not recursively): the
 * folders of every local file a bundle was built from, so that a module shared from outside
 * the entry's folder is seen too, and `node_modules` is not. `watch()` again after each build.
 */
export class FolderWatcher {
  readonly #watchers = new Map<string, FSWatcher>();
  readonly #onChange: (file: string) => void;
  #closed = false;

  /** `onChange` gets the absolute path of a file that changed, appeared or went away. */
  constructor(onChange: (file: string) => void) {
    this.#onChange = onChange;
  }

  /** Watches exactly the folders of `files` (absolute paths). */
  watch(files: Iterable<string>): void {
    if (this.#closed) return;
    const folders = new Set([...files].map((file) => dirname(file)));
    for (const [folder, watcher] of this.#watchers) {
      if (!folders.has(folder)) this.#unwatch(folder, watcher);
    }
    for (const folder of folders) {
      if (this.#watchers.has(folder)) continue;
      try {
        const watcher = watch(folder, (_event, file) => {
          if (file) this.#onChange(join(folder, file.toString()));
        });
        watcher.on('error', () => this.#unwatch(folder, watcher));
        this.#watchers.set(folder, watcher);
      } catch {
        // The folder is gone; a later build that still needs it names it again.
      }
    }
  }

  /** The folders watched now. */
  get folders(): readonly string[] {
    return [...this.#watchers.keys()];
  }

  /** Stops watching, for good: later `watch()` calls do nothing. */
  close(): void {
    this.#closed = true;
    for (const [folder, watcher] of this.#watchers) this.#unwatch(folder, watcher);
  }

  #unwatch(folder: string, watcher: FSWatcher): void {
    watcher.close();
    if (this.#watchers.get(folder) === watcher) this.#watchers.delete(folder);
  }
}
