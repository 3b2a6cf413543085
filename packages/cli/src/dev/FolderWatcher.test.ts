import { describe, expect, it } from 'vitest';
import { watchedFolders } from './FolderWatcher.ts';

const name = (folder: string) => folder.replace('/app/', '');

describe('watchedFolders', () => {
  it('names the entry folder alone when the app is built from nothing outside it', () => {
    expect(watchedFolders('/app/src', ['/app/src', '/app/src/web'], name)).toBe('src');
  });

  it('names up to three folders outside the entry folder', () => {
    const folders = ['/app/src', '/app/shared', '/app/lib', '/app/src/web'];
    expect(watchedFolders('/app/src', folders, name)).toBe(
      'src, shared and lib (the folders the app is built from)',
    );
  });

  it('counts the folders outside past three', () => {
    const folders = ['/app/src', '/app/a', '/app/b', '/app/c', '/app/d'];
    expect(watchedFolders('/app/src', folders, name)).toBe(
      'src and 4 more folders the app is built from',
    );
  });

  it('takes a folder whose name only starts like the entry folder as outside it', () => {
    expect(watchedFolders('/app/src', ['/app/src', '/app/src-gen'], name)).toBe(
      'src and src-gen (the folders the app is built from)',
    );
  });
});
