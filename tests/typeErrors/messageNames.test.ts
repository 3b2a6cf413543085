/**
 * A misspelt message name, or an internal one sent from a client, fails to compile with an error
 * that lists the names it could have been (`"addItem" | "checkout"`), not an alias such as
 * `MessageName<ActorDefinition<"cart", …>>` that hides them. Type tests cannot see how a type
 * prints, so this compiles a snippet with TypeScript's API and reads the messages.
 */
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../..');
// Beside this test, so that `@baton/*` resolve as they do for the repository's own files; it is
// served from memory, never written.
const snippetPath = join(import.meta.dirname, 'snippet.ts');

const snippet = `
import type { BatonClient } from '@baton/client';
import { actor } from '@baton/core';
import { Simulation } from '@baton/testing';
import * as z from 'zod';

const Cart = actor({
  name: 'cart',
  state: z.object({ items: z.array(z.string()) }),
  initial: () => ({ items: [] as string[] }),
  handlers: {
    addItem: {
      public: true,
      payload: z.object({ sku: z.string() }),
      handle: (ctx, { sku }) => {
        ctx.state.items.push(sku);
      },
    },
    checkout: { public: true, payload: z.object({}), handle: () => {} },
    audit: {
      payload: z.object({}),
      handle: (ctx) => {
        ctx.send(Cart.ref('audit'), 'addItme', { sku: 'x' });
      },
    },
  },
});

declare const client: BatonClient;
void client.send(Cart.ref('a'), 'addItme', { sku: 'x' });
void client.send(Cart.ref('a'), 'audit', {});
const sim = new Simulation({ actors: [Cart], seed: 1 });
sim.send(Cart.ref('a'), 'addItme', { sku: 'x' });
`;

/** Each error in the snippet: the call it is in, and the names its parameter type lists. */
function errors(): { call: string; argument: string; names: string[] | string }[] {
  const config = ts.getParsedCommandLineOfConfigFile(join(root, 'tsconfig.json'), undefined, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    },
  });
  if (!config) throw new Error('no tsconfig.json');
  const host = ts.createCompilerHost(config.options);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (file) => file === snippetPath || fileExists.call(host, file);
  host.readFile = (file) => (file === snippetPath ? snippet : readFile.call(host, file));
  host.getSourceFile = (file, language, ...rest) =>
    file === snippetPath
      ? ts.createSourceFile(file, snippet, language)
      : getSourceFile.call(host, file, language, ...rest);
  const program = ts.createProgram([snippetPath], config.options, host);
  const source = program.getSourceFile(snippetPath)!;
  return ts.getPreEmitDiagnostics(program, source).map((d) => {
    const { line } = source.getLineAndCharacterOfPosition(d.start ?? 0);
    const call = /[\w.]+\(/.exec(source.text.split('\n')[line]!)![0];
    const text = ts.flattenDiagnosticMessageText(d.messageText, '\n');
    const [, argument = text, parameter = ''] =
      /^Argument of type '(.*)' is not assignable to parameter of type '(.*)'\.$/.exec(text) ?? [];
    // A union of string literals, in whatever order the checker made them; else the type as shown.
    const names = /^"\w+"( \| "\w+")*$/.test(parameter) ? parameter.split(' | ').sort() : parameter;
    return { call, argument, names };
  });
}

describe('an unknown or internal message name', () => {
  it('fails to compile with the names that are there', () => {
    const all = ['"addItem"', '"audit"', '"checkout"'];
    const publicOnly = ['"addItem"', '"checkout"'];
    expect(errors()).toEqual([
      { call: 'ctx.send(', argument: '"addItme"', names: all },
      { call: 'client.send(', argument: '"addItme"', names: publicOnly },
      { call: 'client.send(', argument: '"audit"', names: publicOnly },
      { call: 'sim.send(', argument: '"addItme"', names: all },
    ]);
  }, 60_000);
});
