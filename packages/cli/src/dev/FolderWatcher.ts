import { type FSWatcher, watch } from 'node:fs';
import { dirname, join, sep } from 'node:path';

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

/**
 * What `baton dev`'s readiness line says it watches: the entry's folder `appDir`, then the
 * watched folders outside it (what the app imports from elsewhere), by `name` when there are at
 * most three, else counted.
 *
 * @example
 * watchedFolders('/a/src', ['/a/src', '/a/shared'], (p) => p)
 * // '/a/src and /a/shared (the folders the app is built from)'
 */
export function watchedFolders(
  appDir: string,
  folders: readonly string[],
  name: (folder: string) => string,
): string {
  const outside = folders.filter((folder) => folder !== appDir && !folder.startsWith(appDir + sep));
  if (outside.length > 3)
    return `${name(appDir)} and ${outside.length} more folders the app is built from`;
  const names = [appDir, ...outside].map(name);
  if (names.length === 1) return names[0]!;
  // Each named for what it is: a folder of files the app imports, watched for those alone.
  return `${names.slice(0, -1).join(', ')} and ${names.at(-1)} (the folders the app is built from)`;
}
