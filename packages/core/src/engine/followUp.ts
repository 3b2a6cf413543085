/**
 * How an error's hint names an operator's next command, as a tagged template: its text is the
 * command's own words, kept as written (`actors get`, `--type`, a placeholder such as
 * `<message id>`), and each `${…}` one operand from data — an actor id, whose key is any string
 * an app chose, a message id, a cursor — shell-quoted, so that the hint pasted in a shell runs
 * the command it names, whatever the id holds. A plain id reads as is.
 *
 * `baton <command>` by default ({@link batonCommand}). The CLI passes its own, which adds the
 * target options it was given (`--stack`, `--region`, …), so a hint copied from its output acts
 * on the same deployment, not the default one.
 *
 * @example
 * followUp`actors resume ${actorId}`;
 * // 'tally/fred':      baton actors resume tally/fred
 * // "tally/it's $(x)": baton actors resume 'tally/it'\''s $(x)'
 */
export type FollowUp = (command: TemplateStringsArray, ...operands: readonly string[]) => string;

/** `value` as one shell word: as is when plain (`tally/fred`, `o-1`), else in single quotes. */
export function shellQuote(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}

/**
 * The command a {@link FollowUp} is given, as one line (without `baton`): its text as written,
 * each operand {@link shellQuote}d.
 *
 * @example
 * commandLine`dead-letters show ${'tally/a b'} <message id>`;
 * // "dead-letters show 'tally/a b' <message id>"
 */
export function commandLine(command: TemplateStringsArray, ...operands: readonly string[]): string {
  return command.reduce((line, text, i) => `${line}${shellQuote(operands[i - 1] ?? '')}${text}`);
}

/** `baton <command>`, its operands quoted: what a hint names when its caller passes no {@link FollowUp}. */
export const batonCommand: FollowUp = (command, ...operands) =>
  `baton ${commandLine(command, ...operands)}`;
