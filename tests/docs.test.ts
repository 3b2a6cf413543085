/**
 * The repository's Markdown as a reader follows it: every link to a file points at one inside
 * the repository, and each package README's install line says it waits for publication and what
 * to do until then.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { markdownFiles, root } from './markdownFiles.ts';

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
