/**
 * What an operating command reads and writes besides the deployment: its output streams, the
 * environment, the clock, and how it asks before a destructive action. `runOps` takes one, so
 * tests run the CLI in-process and read what it printed.
 */
import { createInterface } from 'node:readline/promises';

export interface OpsIo {
  /** Writes a line of output (the result: a table, or JSON with `--json`). */
  readonly out: (line: string) => void;
  /** Writes a line of diagnostics: errors, and who did what (the audit line). */
  readonly err: (line: string) => void;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly now: () => number;
  /** Asks a yes/no question; `undefined` when there is no one to ask (not a terminal). */
  readonly confirm?: (question: string) => Promise<boolean>;
}

/** The process's own streams; it asks on the terminal when stdin is one. */
export function processIo(): OpsIo {
  return {
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
    env: process.env,
    now: () => Date.now(),
    ...(process.stdin.isTTY
      ? {
          confirm: async (question: string) => {
            const rl = createInterface({ input: process.stdin, output: process.stderr });
            try {
              return /^y(es)?$/i.test((await rl.question(`${question} [y/N] `)).trim());
            } finally {
              rl.close();
            }
          },
        }
      : {}),
  };
}
