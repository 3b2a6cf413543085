/**
 * Vitest global setup: an empty folder for this run's packed packages, which the first test file
 * that needs them fills (`tests/pack/packedOnce.ts`), removed when the run ends.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where `packedOnce` packs this run's tarballs. */
    packedFolder: string;
  }
}

export default function setup(project: TestProject): () => void {
  const folder = mkdtempSync(join(tmpdir(), 'baton-packed-'));
  project.provide('packedFolder', folder);
  return () => rmSync(folder, { recursive: true, force: true });
}
