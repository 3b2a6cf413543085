import { OPS_USAGE } from '@baton/cli/ops';

/** The `baton` commands that are not operating ones, and `baton audit`, the audit line's prefix. */
const OTHER_WORDS = new Set(['init', 'dev', 'audit']);

/** The operating commands, by their words, as `baton --help` lists them (`dead-letters list`). */
export const OPS_COMMANDS: ReadonlySet<string> = new Set(
  [...OPS_USAGE.matchAll(/^ {2}baton ([a-z-]+(?: [a-z-]+)?)/gm)].map((match) => match[1]!),
);

/** The options `baton --help` names, with or without a value (`--stack`, `--dry-run`). */
const OPS_OPTIONS: ReadonlySet<string> = new Set(OPS_USAGE.match(/--[a-z-]+/g));

/**
 * Why the command line `line` (`baton dead-letters redrive --all --dry-run`) is not one the
 * `baton` command has, or `undefined` if it is: its words name no operating command, or it
 * passes an option `baton --help` does not name. A line of output (`baton status: …`) passes.
 */
export function notACommand(line: string): string | undefined {
  const tokens = line
    .replace(/\s#.*$/, '')
    .trim()
    .split(/\s+/)
    .slice(1);
  const [first = '', second = ''] = tokens;
  if (first.endsWith(':') || second.endsWith(':') || OTHER_WORDS.has(first)) return undefined;
  const options = tokens.filter((token) => token.startsWith('--')).map((o) => o.split('=')[0]!);
  const unknownOptions = options.filter((option) => !OPS_OPTIONS.has(option));
  if (unknownOptions.length > 0) return `${line}: no option ${unknownOptions.join(', ')}`;
  if (first.startsWith('--') || OPS_COMMANDS.has(first)) return undefined;
  const group = [...OPS_COMMANDS].filter((command) => command.startsWith(`${first} `));
  if (group.length === 0) return `${line}: no command "${first}"`;
  // `baton workflows` speaks of the group; `baton workflows lst` names no command.
  const words = `${first} ${second}`;
  return /^[a-z]/.test(second) && !OPS_COMMANDS.has(words)
    ? `${line}: no command "${words}"`
    : undefined;
}
