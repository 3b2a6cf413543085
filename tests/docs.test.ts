/**
 * The repository's Markdown as a reader follows it: every link to a file points at one inside
 * the repository, every `baton` command it names is one the CLI has, and each package README's
 * install line says it waits for publication and what to do until then.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { markdownFiles, root } from './markdownFiles.ts';
import { notACommand } from './opsCommands.ts';

const markdown = markdownFiles();

/** The targets of a document's Markdown links to files (not to URLs or its own headings). */
function fileLinks(text: string): string[] {
  const prose = text.replace(/```[\s\S]*?```/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1]!)
    .filter((target) => !/^[a-z]+:/i.test(target) && !target.startsWith('#'));
}

describe("the repository's documents", () => {
  it('link only to files inside the repository that exist', () => {
    const broken: string[] = [];
    let links = 0;
    for (const doc of markdown) {
      for (const target of fileLinks(readFileSync(join(root, doc), 'utf8'))) {
        links++;
        const path = target.split('#')[0]!;
        const file = resolve(root, dirname(doc), path);
        const outside = isAbsolute(path) || relative(root, file).startsWith('..');
        if (outside || !existsSync(file)) broken.push(`${doc}: ${target}`);
      }
    }
    // The READMEs do link to the architecture document, the deploy contract and each other.
    expect(links).toBeGreaterThan(10);
    expect(broken).toEqual([]);
  });

  it('name only `baton` commands and options the CLI has', () => {
    const unknown: string[] = [];
    let commands = 0;
    for (const doc of markdown) {
      const text = readFileSync(join(root, doc), 'utf8');
      // In code spans (`baton status`), and as lines of code blocks (`$ baton status`).
      const spans = [...text.matchAll(/`(baton [^`\n]+)`/g)].map((match) => match[1]!);
      const lines = [...text.matchAll(/^(?:\$ )?(baton [^\n]+)$/gm)].map((match) => match[1]!);
      for (const line of [...spans, ...lines]) {
        commands++;
        const why = notACommand(line);
        if (why) unknown.push(`${doc}: ${why}`);
      }
    }
    expect(commands).toBeGreaterThan(100);
    expect(unknown).toEqual([]);
  });

  it('quote each log line operators search for as the code writes it', () => {
    // The packages' `…_LOG` constants: what alarms filter on and the runbook tells to look for.
    const sources = execFileSync('git', ['ls-files', 'packages/*/src/**.ts'], { cwd: root })
      .toString()
      .split('\n')
      .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'));
    const lines = sources.flatMap((file) =>
      [...readFileSync(join(root, file), 'utf8').matchAll(/export const \w+_LOG = '([^']+)'/g)].map(
        (match) => match[1]!,
      ),
    );
    const runbook = readFileSync(join(root, 'docs/operations.md'), 'utf8').replace(/\s+/g, ' ');
    expect(lines.length).toBeGreaterThan(8);
    expect(lines.filter((line) => !runbook.includes(`\`${line}\``))).toEqual([]);
  });

  it('tell a command the CLI has from one it has not', () => {
    expect(notACommand('baton dead-letters redrive --all --since 2h --dry-run')).toBeUndefined();
    expect(notACommand('baton workflows list --status paused --app <entry>')).toBeUndefined();
    expect(notACommand('baton status: 3 dead letters')).toBeUndefined();
    expect(notACommand('baton messages')).toBe('baton messages: no command "messages"');
    expect(notACommand('baton dead-letters lst')).toBe(
      'baton dead-letters lst: no command "dead-letters lst"',
    );
    expect(notACommand('baton status --stak bank')).toBe(
      'baton status --stak bank: no option --stak',
    );
  });

  it('point a reader of the design to documents the repository owns', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    expect(fileLinks(readme)).toEqual(
      expect.arrayContaining(['docs/architecture.md', 'docs/writing-a-backend.md']),
    );
  });

  it("say under each package's install line that it works once published, and what to do until then", () => {
    const silent: string[] = [];
    let installs = 0;
    for (const name of readdirSync(join(root, 'packages'))) {
      const file = join(root, 'packages', name, 'README.md');
      if (!existsSync(file)) continue;
      const install = /## Install\s+```sh\n(pnpm add [^\n]+)\n```\n([\s\S]*?)\n## /.exec(
        readFileSync(file, 'utf8'),
      );
      if (!install) continue;
      installs++;
      const note = install[2]!.replace(/\s+/g, ' ');
      if (!note.includes('not on the npm registry yet') || !note.includes('--from packed')) {
        silent.push(`packages/${name}/README.md`);
      }
    }
    expect(installs).toBeGreaterThanOrEqual(9);
    expect(silent).toEqual([]);
  });
});
