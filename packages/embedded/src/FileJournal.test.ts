import { spawnSync } from 'node:child_process';
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMainThread } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { FileJournal } from './FileJournal.ts';

const dirs: string[] = [];
const open: FileJournal[] = [];

function journalPath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'baton-journal-'));
  dirs.push(dir);
  mkdirSync(join(dir, 'nested'));
  return join(dir, 'nested', 'journal.jsonl');
}

function openJournal(path: string): FileJournal {
  const journal = new FileJournal(path);
  open.push(journal);
  return journal;
}

afterEach(() => {
  for (const journal of open.splice(0)) journal.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('FileJournal', () => {
  it('keeps the state readable by its owner only: the folders it makes 0700, its files 0600', () => {
    const root = mkdtempSync(join(tmpdir(), 'baton-journal-'));
    dirs.push(root);
    // Permissive defaults, as a shared machine may have: the modes must not come from them.
    // (A worker thread — mutation testing runs the tests in one — may not set the umask; the
    // usual 022 still leaves files 0644 and folders 0755 unless the journal narrows them.)
    const umask = isMainThread ? process.umask(0o002) : undefined;
    try {
      const path = join(root, 'data', 'baton', 'journal.jsonl');
      const journal = openJournal(path);
      journal.append([{ t: 'a', n: 1 }]);
      const mode = (file: string) => statSync(file).mode & 0o777;
      expect(mode(join(root, 'data'))).toBe(0o700);
      expect(mode(join(root, 'data', 'baton'))).toBe(0o700);
      expect(mode(path)).toBe(0o600);
      expect(mode(`${path}.lock`)).toBe(0o600);
      journal.replace([{ t: 'b', n: 2 }]); // compaction writes a new file
      expect(mode(path)).toBe(0o600);
      journal.close();
      // A journal left readable by an older version is narrowed when opened.
      writeFileSync(join(root, 'old.jsonl'), '', { mode: 0o644 });
      openJournal(join(root, 'old.jsonl'));
      expect(mode(join(root, 'old.jsonl'))).toBe(0o600);
    } finally {
      if (umask !== undefined) process.umask(umask);
    }
  });

  it('replays what was appended, in order, after a reopen', () => {
    const path = journalPath();
    const journal = openJournal(path);
    journal.append([{ t: 'a', n: 1 }]);
    journal.append([
      { t: 'b', text: 'line\nbreak' },
      { t: 'c', n: 3 },
    ]);
    journal.close();
    expect(openJournal(path).replay()).toEqual([
      { t: 'a', n: 1 },
      { t: 'b', text: 'line\nbreak' },
      { t: 'c', n: 3 },
    ]);
  });

  it('ignores a torn last line and appends after the last whole one', () => {
    const path = journalPath();
    const journal = openJournal(path);
    journal.append([{ t: 'a', n: 1 }]);
    journal.close();
    appendFileSync(path, '{"t":"b","n":');
    const reopened = openJournal(path);
    expect(reopened.replay()).toEqual([{ t: 'a', n: 1 }]);
    reopened.append([{ t: 'c', n: 3 }]);
    reopened.close();
    expect(openJournal(path).replay()).toEqual([
      { t: 'a', n: 1 },
      { t: 'c', n: 3 },
    ]);
  });

  it('ignores a last line that ended but does not parse', () => {
    const path = journalPath();
    writeFileSync(path, '{"t":"a"}\n{"t":"b",\n');
    expect(openJournal(path).replay()).toEqual([{ t: 'a' }]);
    expect(readFileSync(path, 'utf8')).toBe('{"t":"a"}\n');
  });

  it('refuses a journal corrupt before its last line, naming the line', () => {
    const path = journalPath();
    writeFileSync(path, '{"t":"a"}\nnot json\n{"t":"c"}\n');
    expect(() => openJournal(path).replay()).toThrow(/corrupt at line 2/);
  });

  it('replaces its content atomically and keeps appending after', () => {
    const path = journalPath();
    const journal = openJournal(path);
    journal.append([{ t: 'a' }, { t: 'b' }, { t: 'c' }]);
    journal.replace([{ t: 'snapshot' }]);
    journal.append([{ t: 'd' }]);
    expect(journal.replay()).toEqual([{ t: 'snapshot' }, { t: 'd' }]);
    journal.close();
    expect(openJournal(path).replay()).toEqual([{ t: 'snapshot' }, { t: 'd' }]);
  });

  it('removes a temporary file left by a crash during replace', () => {
    const path = journalPath();
    openJournal(path).close();
    writeFileSync(`${path}.tmp`, '{"t":"half a snapshot"}\n');
    expect(openJournal(path).replay()).toEqual([]);
    expect(existsSync(`${path}.tmp`)).toBe(false);
  });

  it('refuses a second open while the first is open, and allows it after close', () => {
    const path = journalPath();
    const first = openJournal(path);
    expect(() => new FileJournal(path)).toThrow(/in use by process/);
    first.close();
    expect(openJournal(path).replay()).toEqual([]);
  });

  it('takes over the lock of a process that is gone', () => {
    const path = journalPath();
    openJournal(path).close();
    const gone = spawnSync(process.execPath, ['-e', '0']).pid;
    writeFileSync(`${path}.lock`, String(gone));
    openJournal(path).append([{ t: 'a' }]);
    expect(readFileSync(`${path}.lock`, 'utf8')).toBe(String(process.pid));
  });

  it('refuses to be used after close', () => {
    const journal = new FileJournal(journalPath());
    journal.close();
    expect(() => journal.append([{ t: 'a' }])).toThrow(/closed/);
  });
});
