import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const BIN = join(import.meta.dirname, '..', 'bin', 'baton.js');

/** Runs the `baton` command as a user does; its exit code and output. */
async function baton(...argv: string[]) {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [BIN, ...argv]);
    return { code: 0, out: stdout, err: stderr };
  } catch (error) {
    const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
    return { code, out: stdout, err: stderr };
  }
}

describe('baton with a misspelt command', () => {
  it('names the word and the nearest command, and points to --help, not the whole usage', async () => {
    const typo = await baton('stauts');
    expect(typo.code).toBe(2);
    expect(typo.err.trim()).toBe(
      'baton: unknown command "stauts": did you mean "status"? baton --help lists the commands',
    );
    expect(typo.out).toBe('');

    const actor = await baton('actor', 'list', 'tally');
    expect(actor.code).toBe(2);
    expect(actor.err.trim()).toBe(
      'baton: unknown command "actor": did you mean "actors"? baton --help lists the commands',
    );

    const far = await baton('frobnicate');
    expect(far.code).toBe(2);
    expect(far.err.trim()).toBe(
      'baton: unknown command "frobnicate": baton --help lists the commands',
    );
  }, 60_000);
});
