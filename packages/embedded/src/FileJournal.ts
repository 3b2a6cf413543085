import {
  closeSync,
  fchmodSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { dirname, resolve } from 'node:path';
import { BatonError, ErrorCode } from '@baton/core';
import { invalidArgument } from '@baton/core/adapter';
import { acquireLock, releaseLock } from './fileLock.ts';
import type { Journal, JournalEntry } from './Journal.ts';

const NEWLINE = 0x0a;
/** The journal holds the app's state: its folder and files are for their owner only. */
const DIR_MODE = 0o700;
const FILE_MODE = 0o600;

/**
 * A {@link Journal} in one file, one JSON line per entry. Every `append` is one `write` followed
 * by `fsync`, so an entry is durable when `append` returns. A torn last line (the process died
 * mid-write) is ignored and cut off when the file is opened. `replace` writes a temporary file,
 * syncs it and renames it over the journal, so a crash leaves either the old or the new content.
 * A `<path>.lock` file holding the process id keeps a second process from opening the journal.
 * The folders it creates are `0700` and its files `0600` (a journal of an older version is
 * narrowed to `0600` when opened): only their owner can read the app's state.
 *
 * @example
 * const journal = new FileJournal('/var/lib/app/baton/journal.jsonl');
 * journal.append([{ t: 'note', text: 'hello' }]);
 * journal.close();
 * new FileJournal('/var/lib/app/baton/journal.jsonl').replay(); // [{ t: 'note', text: 'hello' }]
 */
export class FileJournal implements Journal {
  readonly path: string;
  readonly #lockPath: string;
  #fd: number | undefined;
  /** Bytes of whole lines in the file: where the next append starts. */
  #size = 0;

  constructor(path: string) {
    this.path = resolve(path);
    this.#lockPath = `${this.path}.lock`;
    mkdirSync(dirname(this.path), { recursive: true, mode: DIR_MODE });
    acquireLock(this.#lockPath);
    try {
      rmSync(`${this.path}.tmp`, { force: true });
      this.#fd = openSync(this.path, 'a+', FILE_MODE);
      fchmodSync(this.#fd, FILE_MODE);
      this.#size = cutTornTail(this.#fd);
      syncDirectory(dirname(this.path));
    } catch (error) {
      this.#release();
      throw error;
    }
  }

  append(entries: readonly JournalEntry[]): void {
    if (entries.length === 0) return;
    const fd = this.#open();
    const data = Buffer.from(entries.map((entry) => `${JSON.stringify(entry)}\n`).join(''));
    try {
      writeAll(fd, data);
      fsyncSync(fd);
    } catch (error) {
      try {
        ftruncateSync(fd, this.#size);
      } catch {
        // the next open cuts a torn tail anyway
      }
      throw new BatonError(ErrorCode.UNAVAILABLE, `could not write the journal ${this.path}`, {
        cause: error,
      });
    }
    this.#size += data.length;
  }

  replay(): JournalEntry[] {
    this.#open();
    const text = readFileSync(this.path).subarray(0, this.#size).toString('utf8');
    const entries: JournalEntry[] = [];
    let lineNo = 0;
    for (const line of text.split('\n')) {
      lineNo++;
      if (line === '') continue;
      const entry = parseEntry(line);
      if (!entry) {
        throw invalidArgument(
          `the journal ${this.path} is corrupt at line ${lineNo}: restore it from a backup, ` +
            'or move its dataDir away to start empty',
          { path: this.path, line: lineNo },
        );
      }
      entries.push(entry);
    }
    return entries;
  }

  replace(entries: readonly JournalEntry[]): void {
    this.#open();
    const tmp = `${this.path}.tmp`;
    const data = Buffer.from(entries.map((entry) => `${JSON.stringify(entry)}\n`).join(''));
    const tmpFd = openSync(tmp, 'w', FILE_MODE);
    try {
      writeAll(tmpFd, data);
      fsyncSync(tmpFd);
    } finally {
      closeSync(tmpFd);
    }
    renameSync(tmp, this.path);
    syncDirectory(dirname(this.path));
    closeSync(this.#fd!);
    this.#fd = openSync(this.path, 'a+');
    this.#size = data.length;
  }

  close(): void {
    if (this.#fd === undefined) return;
    closeSync(this.#fd);
    this.#fd = undefined;
    this.#release();
  }

  #open(): number {
    if (this.#fd === undefined) {
      throw new BatonError(ErrorCode.UNAVAILABLE, `the journal ${this.path} is closed`);
    }
    return this.#fd;
  }

  #release(): void {
    releaseLock(this.#lockPath);
  }
}

function parseEntry(line: string): JournalEntry | undefined {
  try {
    const value = JSON.parse(line) as unknown;
    if (
      typeof value === 'object' &&
      value !== null &&
      typeof (value as JournalEntry).t === 'string'
    ) {
      return value as JournalEntry;
    }
  } catch {
    // not JSON
  }
  return undefined;
}

/**
 * Finds the end of the last whole, parseable line and truncates anything after it: the remains
 * of a write the process did not finish. Returns the new size.
 */
function cutTornTail(fd: number): number {
  const size = fstatSync(fd).size;
  if (size === 0) return 0;
  const data = Buffer.alloc(size);
  let read = 0;
  while (read < size) {
    const n = readSync(fd, data, read, size - read, read);
    if (n === 0) break;
    read += n;
  }
  let end = data.lastIndexOf(NEWLINE, read - 1) + 1;
  if (end > 0) {
    // The last terminated line must parse too; if not, it is the torn write.
    const start = end >= 2 ? data.lastIndexOf(NEWLINE, end - 2) + 1 : 0;
    if (!parseEntry(data.subarray(start, end - 1).toString('utf8'))) end = start;
  }
  if (end !== size) {
    ftruncateSync(fd, end);
    fsyncSync(fd);
  }
  return end;
}

function writeAll(fd: number, data: Buffer): void {
  let written = 0;
  while (written < data.length) written += writeSync(fd, data, written);
}

function syncDirectory(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
