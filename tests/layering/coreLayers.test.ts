/**
 * Core's layers, by import: each module of `packages/core/src` imports only modules of its own
 * layer or of layers below it. Bottom to top: the error model, the shared helpers, the app API
 * (the package's main entry: actor, query and workflow definitions), the adapter ports, then
 * the engine and, beside it, the ingress `Client` (neither imports the other).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const src = join(import.meta.dirname, '..', '..', 'packages', 'core', 'src');

type Layer = 'errors' | 'shared' | 'app' | 'adapter' | 'engine' | 'client';

/** The layer of a module, by its path under `src`: a directory, else the app API. */
function layerOf(file: string): Layer {
  if (file === 'errors.ts') return 'errors';
  const top = file.split('/')[0];
  if (top === 'shared' || top === 'adapter' || top === 'engine' || top === 'client') return top;
  return 'app'; // the files beside index.ts, and workflow/
}

/** What each layer may import besides itself. */
const below: Record<Layer, readonly Layer[]> = {
  errors: [],
  shared: ['errors'],
  app: ['errors', 'shared'],
  adapter: ['errors', 'shared', 'app'],
  engine: ['errors', 'shared', 'app', 'adapter'],
  client: ['errors', 'shared', 'app', 'adapter'],
};

/** Every module of core (tests left out: a test may reach across layers to check them). */
function modules(): string[] {
  return readdirSync(src, { recursive: true })
    .map((file) => String(file).split('\\').join('/'))
    .filter((file) => file.endsWith('.ts') && !/\.test(-d)?\.ts$/.test(file));
}

/** The core modules `file` imports or re-exports, static or dynamic, as paths under `src`. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(src, file), 'utf8');
  const specifiers = [
    ...text.matchAll(/\bfrom\s+'([^']+)'/g),
    ...text.matchAll(/\bimport\s*\(?\s*'([^']+)'/g),
  ].map((match) => match[1] as string);
  return specifiers.flatMap((specifier) => {
    if (specifier.startsWith('.')) {
      return [
        relative(src, normalize(join(src, dirname(file), specifier)))
          .split('\\')
          .join('/'),
      ];
    }
    // A self-import by package name lands in the subpath's index.
    const subpath = /^@baton\/core(?:\/(\w+))?$/.exec(specifier);
    if (subpath) return [subpath[1] ? `${subpath[1]}/index.ts` : 'index.ts'];
    return [];
  });
}

const graph = new Map(modules().map((file) => [file, importsOf(file)]));

describe("core's layers", () => {
  it('reads the import graph (every layer present, known edges found)', () => {
    const layers = new Set([...graph.keys()].map(layerOf));
    expect([...layers].sort()).toEqual(['adapter', 'app', 'client', 'engine', 'errors', 'shared']);
    expect(graph.get('engine/createEngine.ts')).toContain('adapter/ports.ts');
    expect(graph.get('index.ts')).toContain('workflow/workflow.ts');
    expect(graph.get('client/Client.ts')).toContain('client/readWorkflow.ts');
    expect(graph.get('shared/canonicalJson.ts')).toEqual(['errors.ts']);
    expect(layerOf('workflow/workflow.ts')).toBe('app');
  });

  it('has no module importing a layer above its own (an app-API module never imports adapter, engine or client)', () => {
    const wrong: string[] = [];
    for (const [file, imports] of graph) {
      const layer = layerOf(file);
      for (const target of imports) {
        const to = layerOf(target);
        if (to !== layer && !below[layer].includes(to)) {
          wrong.push(`${file} (${layer}) imports ${target} (${to})`);
        }
      }
    }
    expect(wrong, `move the shared piece down (shared/, or the app API) instead`).toEqual([]);
  });

  it("keeps the main entry's whole import closure within the app API, shared and errors", () => {
    const seen = new Set<string>();
    const pending = ['index.ts'];
    while (pending.length > 0) {
      const file = pending.pop() as string;
      if (seen.has(file)) continue;
      seen.add(file);
      pending.push(...(graph.get(file) ?? []));
    }
    expect(seen.size).toBeGreaterThan(20);
    expect(
      [...seen].filter((file) => !['errors', 'shared', 'app'].includes(layerOf(file))),
    ).toEqual([]);
  });
});
