/**
 * The sample sessions of packages/cli/README.md, recorded from the ops tests (BATON_DRILL_OUT):
 * each `$ baton …` command is written as those tests record it, every word quoted for a shell,
 * so that, pasted, it gives the CLI the words the test ran (a JSON payload keeps its quotes).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { shellLine, shellWords } from './fixtures/opsDeployment.ts';

const README = join(import.meta.dirname, '..', '..', 'packages', 'cli', 'README.md');

/** The `$ baton …` lines of the README's text blocks (the sessions), without the `$ `. */
function sessionCommands(): string[] {
  const blocks = readFileSync(README, 'utf8').match(/```text\n[\s\S]*?```/g) ?? [];
  return blocks.flatMap((block) =>
    [...block.matchAll(/^\$ (baton .*)$/gm)].map((match) => match[1]!),
  );
}

describe("the CLI README's sample sessions", () => {
  it('write each command as it is pasted: the words a shell makes of it, quoted again, are the line', () => {
    const commands = sessionCommands();
    expect(commands.length).toBeGreaterThan(20);
    const wrong = commands.filter((line) => {
      // A shell refuses an unquoted `<`, `>` or `;` outright (a placeholder left in).
      let words: string[];
      try {
        words = shellWords(line);
      } catch {
        return true;
      }
      // `…` alone stands for a target option's value the README leaves out.
      const quoted = shellLine(words).replaceAll(`'…'`, '…');
      return quoted !== line;
    });
    expect(wrong).toEqual([]);
  });

  it('record a command as a shell line that gives its words back', () => {
    const argv = ['workflows', 'signal', 'ship', 'a', 'packed', '{"box":"B-1"}', '--key', "it's"];
    expect(shellLine(argv)).toBe(`workflows signal ship a packed '{"box":"B-1"}' --key 'it'\\''s'`);
    expect(shellWords(shellLine(argv))).toEqual(argv);
  });
});
