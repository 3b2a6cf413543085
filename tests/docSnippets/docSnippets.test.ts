/**
 * Every TypeScript example in the repository's Markdown type-checks against the API as it is, so
 * that a reader who copies one gets code that compiles.
 *
 * An example is checked as a module of its own, beside `fixtures/` (the app the examples import
 * from `./app.ts` and friends). What it leaves to the reader — a `store`, a `client`, the actor it
 * is a handler of — goes in an HTML comment right above its fence, which a reader does not see:
 *
 *     <!-- ts-context
 *     declare const store: Store;
 *     -->
 *
 * The context comes before the example, or around it where it holds a line `{{example}}`. An
 * example that only sketches its wiring says why it is not checked: `<!-- ts-unchecked: why -->`.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { markdownFiles, root } from '../markdownFiles.ts';

interface Example {
  /** Where the example's first line is, as `doc:line`. */
  readonly at: string;
  readonly doc: string;
  readonly line: number;
  readonly language: 'ts' | 'tsx';
  readonly code: string;
  readonly context: string | undefined;
  readonly unchecked: string | undefined;
}

// An example's fence, and the comment right above it (whose text holds no `-->`).
const EXAMPLE =
  /(?:<!-- ts-(context|unchecked)((?:(?!-->)[\s\S])*)-->\s*)?```(tsx?)\n([\s\S]*?)```/g;

function examples(doc: string): Example[] {
  const text = readFileSync(join(root, doc), 'utf8');
  return [...text.matchAll(EXAMPLE)].map((match) => {
    const [whole, kind, note, language, code] = match;
    const line = text.slice(0, match.index + whole.indexOf('```')).split('\n').length + 1;
    return {
      at: `${doc}:${line}`,
      doc,
      line,
      language: language as 'ts' | 'tsx',
      code: code!,
      context: kind === 'context' ? note!.replace(/^\n/, '') : undefined,
      unchecked: kind === 'unchecked' ? note!.replace(/^:/, '').trim() : undefined,
    };
  });
}

/** The module to check, and the line of the module the example's first line lands on. */
function moduleOf(example: Example): { source: string; firstLine: number } {
  const context = example.context ?? '';
  const [before, after = ''] = context.includes('{{example}}\n')
    ? context.split('{{example}}\n')
    : [context];
  const source = `${before}${example.code}${after}\nexport {};\n`;
  return { source, firstLine: before!.split('\n').length };
}

const all = markdownFiles().flatMap(examples);

describe("the documents' TypeScript examples", () => {
  it('say why, where one is left unchecked', () => {
    const unexplained = all.filter((e) => e.unchecked !== undefined && e.unchecked.length < 10);
    expect(unexplained.map((e) => e.at)).toEqual([]);
    // The mechanism is used: most examples are checked.
    const checked = all.filter((e) => e.unchecked === undefined);
    expect(checked.length).toBeGreaterThan(30);
    expect(checked.length).toBeGreaterThan(all.length * 0.85);
  });

  it('type-check against the API as written', async () => {
    const dir = mkdtempSync(join(root, 'tests', 'docSnippets', '.check-'));
    try {
      cpSync(join(import.meta.dirname, 'fixtures'), dir, { recursive: true });
      const lines = new Map<string, { example: Example; firstLine: number }>();
      all.forEach((example, index) => {
        if (example.unchecked !== undefined) return;
        const file = `example${index}.${example.language}`;
        const { source, firstLine } = moduleOf(example);
        writeFileSync(join(dir, file), source);
        lines.set(file, { example, firstLine });
      });
      writeFileSync(
        join(dir, 'tsconfig.json'),
        JSON.stringify({ extends: '../../../tsconfig.json', include: ['*.ts', '*.tsx'] }),
      );
      const tsc = join(root, 'node_modules', '.bin', 'tsc');
      const output = await promisify(execFile)(tsc, ['-p', join(dir, 'tsconfig.json')], {
        cwd: root,
      }).then(
        () => '',
        (error: { stdout: string }) => error.stdout,
      );
      // Each error at the document's line, or in the example's context.
      const errors = output
        .split('\n')
        .filter((text) => /^\S.*\(\d+,\d+\): error/.test(text))
        .map((text) => {
          const [, file, line, message] = /([^/\\]+)\((\d+),\d+\): (.*)$/.exec(text)!;
          const found = lines.get(file!);
          if (found === undefined) return `${file}: ${message}`;
          const offset = Number(line) - found.firstLine;
          const { doc, line: first } = found.example;
          return offset < 0 || offset >= found.example.code.split('\n').length - 1
            ? `${found.example.at} (its ts-context): ${message}`
            : `${doc}:${first + offset}: ${message}`;
        });
      expect(errors).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
