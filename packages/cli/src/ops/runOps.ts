/**
 * `baton`'s operating commands: look into a deployed app and act on it (see `OPS_USAGE`).
 * `runOps` is the whole command as a function — arguments in, an exit code out — so tests run
 * it in-process against DynamoDB Local and ElasticMQ.
 */
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { ErrorCode, isBatonError } from '@baton/core';
import { closestWord, unknownTopCommand } from '../unknownCommand.ts';
import { actorsGet, actorsList, actorsPause, actorsResume } from './actors.ts';
import { backlog } from './backlog.ts';
import { deadLettersPurge, deadLettersRedrive } from './deadLetterActions.ts';
import { deadLettersList, deadLettersShow } from './deadLetters.ts';
import { actorsEndFailing } from './endFailing.ts';
import { missingHint, throttleHint, unansweredHint } from './failureHints.ts';
import { checkInbox } from './inboxNeeds.ts';
import { inspect } from './inspect/inspectCommand.ts';
import { ask, send } from './messages.ts';
import { OpsContext, type OpsValues } from './OpsContext.ts';
import type { OpsIo } from './OpsIo.ts';
import { commandHelp, OPS_USAGE, usageAfterError } from './opsUsage.ts';
import { outcome } from './outcome.ts';
import { isPartway } from './partway.ts';
import { queueDeadLettersList, queueDeadLettersRedrive } from './queueDeadLetters.ts';
import { status } from './status.ts';
import { followUp, type TargetOptions } from './target.ts';
import { timersCancel, timersList } from './timers.ts';
import {
  workflowsCancel,
  workflowsResume,
  workflowsSignal,
  workflowsTerminate,
} from './workflowActions.ts';
import { workflowsExport } from './workflowExport.ts';
import { workflowsShow } from './workflows.ts';
import { workflowsList } from './workflowsList.ts';

/** A command; one whose finding sets its exit code (`status`) resolves with that code. */
type Command = (ctx: OpsContext) => Promise<unknown>;
type Option = keyof typeof OPTIONS;

/** What every command takes: which deployment, how to print, who acts, confirmations. */
const COMMON: readonly Option[] = [
  'stack',
  'local',
  'table',
  'queue-url',
  'dead-letter-queue-url',
  'timer-queue-url',
  'stream-failure-queue-url',
  'timer-dead-letter-queue-url',
  'dynamodb-endpoint',
  'sqs-endpoint',
  'region',
  'outbox-shards',
  'json',
  'yes',
  'operator',
  'help',
];

/**
 * What picks dead letters; `--all` acts on every one picked. With `--app`, a `--type` the app
 * does not define is refused, the nearest offered.
 */
const FILTERS: readonly Option[] = ['type', 'code', 'since', 'app'];

/** The operands that name one dead letter (or none, with `--all`). */
const ONE_LETTER = ['<type/key>', '<message id>'];
/** The operands that name a workflow instance. */
const INSTANCE = ['<workflow>', '<id>'];
/** The operands of a message to send. */
const MESSAGE = ['<type/key>', '<name>', '[json payload]'];

/**
 * The commands, by their words, with the options each takes besides {@link COMMON}: any other
 * is refused, so that a `--dry-run` given to a command that has none never acts for real.
 */
/** Of a command that sends to an actor's inbox: send to a queue it did not read from (`inboxOf`). */
const INBOX: Option = 'queue-replaced';

const COMMANDS: Readonly<
  Record<string, { run: Command; takes: readonly Option[]; operands: readonly string[] }>
> = {
  status: { run: status, takes: ['limit'], operands: [] },
  backlog: { run: backlog, takes: ['top', 'limit'], operands: [] },
  'actors get': { run: actorsGet, takes: ['app'], operands: ['<type/key>'] },
  'actors list': { run: actorsList, takes: ['app', 'limit', 'cursor'], operands: ['<type>'] },
  'actors pause': { run: actorsPause, takes: ['app', 'force', INBOX], operands: ['<type/key>'] },
  'actors resume': { run: actorsResume, takes: [INBOX], operands: ['<type/key>'] },
  'actors end-failing': {
    run: actorsEndFailing,
    takes: [],
    operands: ['<type/key>', '<message id>'],
  },
  'dead-letters list': { run: deadLettersList, takes: [...FILTERS, 'limit'], operands: [] },
  'dead-letters show': { run: deadLettersShow, takes: [], operands: ONE_LETTER },
  'dead-letters redrive': {
    run: deadLettersRedrive,
    takes: [...FILTERS, 'all', 'dry-run', 'force', INBOX],
    operands: ONE_LETTER,
  },
  'dead-letters purge': {
    run: deadLettersPurge,
    takes: [...FILTERS, 'all', 'dry-run', 'include-pending'],
    operands: ONE_LETTER,
  },
  'queue-dead-letters list': {
    run: queueDeadLettersList,
    takes: ['limit', 'force'],
    operands: [],
  },
  'queue-dead-letters redrive': {
    run: queueDeadLettersRedrive,
    takes: ['type', 'app', 'dry-run', 'force'],
    operands: [],
  },
  'timers list': { run: timersList, takes: [], operands: ['<type/key>'] },
  'timers cancel': { run: timersCancel, takes: [], operands: ['<type/key>', '<timer id>'] },
  'workflows list': {
    run: workflowsList,
    takes: ['app', 'status', 'limit', 'cursor'],
    operands: ['[<workflow>]'],
  },
  'workflows show': { run: workflowsShow, takes: [], operands: INSTANCE },
  'workflows export': { run: workflowsExport, takes: [], operands: INSTANCE },
  'workflows cancel': {
    run: workflowsCancel,
    takes: ['reason', 'key', 'app', 'dry-run', INBOX],
    operands: INSTANCE,
  },
  'workflows terminate': {
    run: workflowsTerminate,
    takes: ['reason', 'key', 'app', 'dry-run', INBOX],
    operands: INSTANCE,
  },
  'workflows signal': {
    run: workflowsSignal,
    takes: ['app', 'key', 'dry-run', 'force', INBOX],
    operands: [...INSTANCE, '<event>', '[json payload]'],
  },
  'workflows resume': {
    run: workflowsResume,
    takes: ['key', 'app', 'dry-run', 'all', 'limit', INBOX],
    operands: INSTANCE,
  },
  send: { run: send, takes: ['app', 'key', INBOX], operands: MESSAGE },
  ask: { run: ask, takes: ['app', 'key', 'timeout', INBOX], operands: MESSAGE },
  outcome: {
    run: outcome,
    takes: ['caller'],
    operands: ['<message id> | <type/key>', '[<idempotency key>]'],
  },
  inspect: { run: inspect, takes: ['port', 'allow-actions'], operands: [] },
};

/** What to do instead of passing more operands than a command takes, where it is not plain. */
const OPERAND_HINTS: Readonly<Record<string, string>> = {
  'dead-letters list': " (it lists every actor's: narrow it to a type of actor with --type <type>)",
  'dead-letters redrive': ' (one dead letter at a time, or --all with filters)',
  'dead-letters purge': ' (one dead letter at a time, or --all with filters)',
  send: ' (quote the JSON payload as one argument: \'{"entry": 1}\')',
  ask: ' (quote the JSON payload as one argument: \'{"entry": 1}\')',
  'workflows signal': ' (quote the JSON payload as one argument: \'{"box": "B-1"}\')',
};

/** The words that start an operating command (`baton <word> …`), in the usage's order. */
export const OPS_WORDS: readonly string[] = [
  ...new Set(Object.keys(COMMANDS).map((c) => c.split(' ')[0]!)),
];

/** Whether `word` starts an operating command (`baton <word> …`). */
export function isOpsCommand(word: string): boolean {
  return OPS_WORDS.includes(word);
}

/**
 * The command word of `baton <options> <command> …`, its options given before it: the first
 * operand, each option before it taking its value as the operating commands' do (the only
 * options `baton` takes before a command), or as `also` declares it — `init`'s and `dev`'s, so
 * that `baton --backend local-aws dev` finds `dev`, not `local-aws`. `undefined` when there is
 * no operand.
 *
 * @example
 * commandWord(['--stack', 'Prod', 'status']); // 'status'
 * commandWord(['--data-dir', '.data', 'dev', 'src/app.ts'], DEV_OPTIONS); // 'dev'
 */
export function commandWord(
  argv: readonly string[],
  also: NonNullable<ParseArgsConfig['options']> = {},
): string | undefined {
  const { tokens } = parseArgs({
    args: [...argv],
    options: { ...also, ...OPTIONS },
    allowPositionals: true,
    strict: false,
    tokens: true,
  });
  return tokens.find((token) => token.kind === 'positional')?.value;
}

const OPTIONS = {
  stack: { type: 'string' },
  local: { type: 'string' },
  table: { type: 'string' },
  'queue-url': { type: 'string' },
  'dead-letter-queue-url': { type: 'string' },
  'timer-queue-url': { type: 'string' },
  'stream-failure-queue-url': { type: 'string' },
  'timer-dead-letter-queue-url': { type: 'string' },
  'dynamodb-endpoint': { type: 'string' },
  'sqs-endpoint': { type: 'string' },
  region: { type: 'string' },
  'outbox-shards': { type: 'string' },
  json: { type: 'boolean' },
  yes: { type: 'boolean', short: 'y' },
  'dry-run': { type: 'boolean' },
  all: { type: 'boolean' },
  force: { type: 'boolean' },
  'include-pending': { type: 'boolean' },
  'queue-replaced': { type: 'boolean' },
  app: { type: 'string' },
  type: { type: 'string' },
  code: { type: 'string' },
  since: { type: 'string' },
  limit: { type: 'string' },
  top: { type: 'string' },
  cursor: { type: 'string' },
  key: { type: 'string' },
  timeout: { type: 'string' },
  operator: { type: 'string' },
  caller: { type: 'string' },
  status: { type: 'string' },
  reason: { type: 'string' },
  port: { type: 'string' },
  'allow-actions': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/**
 * Runs one operating command; resolves with its exit code (0 done, 1 failed, 2 usage error, 3
 * `status` found a problem: see `UNHEALTHY_EXIT`).
 *
 * @example
 * const code = await runOps(['status', '--stack', 'bank', '--json'], processIo());
 */
export async function runOps(argv: readonly string[], io: OpsIo): Promise<number> {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    // The command's own lines, not the whole usage: what it takes is what the error is about.
    const words = parseArgs({
      args: [...argv],
      options: OPTIONS,
      allowPositionals: true,
      strict: false,
    });
    io.err(`baton: ${(error as Error).message}\n\n${usageAfterError(words.positionals)}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.out(commandHelp(positionals) ?? OPS_USAGE);
    return 0;
  }
  const [first = '', second = ''] = positionals;
  if (positionals.length === 0) {
    io.err('baton: no command: baton --help lists the commands');
    return 2;
  }
  const two = `${first} ${second}`;
  const name = COMMANDS[two] ? two : COMMANDS[first] ? first : undefined;
  if (!name) {
    // A first word of no command is likely a typo: the nearest command beats the whole usage.
    io.err(
      isOpsCommand(first)
        ? `baton: ${unknownCommand(first, second, positionals, values)}\n\n${OPS_USAGE}`
        : `baton: ${unknownTopCommand(first, OPS_WORDS)}`,
    );
    return 2;
  }
  const command = COMMANDS[name]!;
  const foreign = (Object.keys(values) as Option[]).filter(
    (option) => !COMMON.includes(option) && !command.takes.includes(option),
  );
  if (foreign.length > 0) {
    const takes = command.takes.map((option) => `--${option}`).join(', ') || 'none';
    io.err(
      `baton ${name}: it takes no ${foreign.map((option) => `--${option}`).join(', ')} (its own options: ${takes}); nothing was done\n\n${usageAfterError(positionals)}`,
    );
    return 2;
  }
  const args = positionals.slice(name.split(' ').length);
  // An operand a command does not take is refused as an option is: dropped, it would change
  // what the command acts on (`purge <type/key> <id> <id>` would purge the first id only).
  if (args.length > command.operands.length) {
    const extra = args.slice(command.operands.length).map((a) => JSON.stringify(a));
    const takes = command.operands.join(' ') || 'no operand';
    io.err(
      `baton ${name}: too many arguments: it takes ${takes}, and ${extra.join(' ')} ${extra.length === 1 ? 'is' : 'are'} left over${OPERAND_HINTS[name] ?? ''}; nothing was done\n\n${usageAfterError(positionals)}`,
    );
    return 2;
  }
  const ctx = new OpsContext(io, values as OpsValues, args);
  try {
    checkInbox(ctx, name);
    const code = await command.run(ctx);
    return typeof code === 'number' ? code : 0;
  } catch (error) {
    // With --json, every failure is JSON on stdout too, an AWS SDK's or a bug's as well.
    const message = isBatonError(error) ? error.message : String(error);
    if (ctx.json) {
      const json = isBatonError(error)
        ? error.toJSON()
        : { code: ErrorCode.UNAVAILABLE, message, details: { name: (error as Error)?.name } };
      io.out(JSON.stringify({ error: json }, null, 2));
    }
    io.err(
      `baton ${name}: ${message}${await missingHint(ctx, message)}${await throttleHint(ctx, name, message)}${await unansweredHint(ctx, name, error)}`,
    );
    // A refusal is a usage error (2), unless a bulk action met it after doing part of its work.
    return isBatonError(error) && error.code === 'INVALID_ARGUMENT' && !isPartway(error) ? 2 : 1;
  }
}

/**
 * Why `baton <positionals>` names no command, when its first word (`dead-letters`) starts one:
 * it has no subcommand or a misspelt one, so the subcommands it takes, and the nearest.
 */
function unknownCommand(
  first: string,
  second: string,
  positionals: readonly string[],
  target: TargetOptions,
): string {
  const subcommands = Object.keys(COMMANDS)
    .filter((c) => c.startsWith(`${first} `))
    .map((c) => c.slice(first.length + 1));
  const unknown = `unknown command "${positionals.join(' ')}"`;
  const which =
    subcommands.length === 1
      ? subcommands[0]
      : `${subcommands.slice(0, -1).join(', ')} or ${subcommands.at(-1)}`;
  if (second === '') {
    return `"${first}" needs a subcommand: ${which} (e.g. ${followUp(`${first} ${subcommands[0]}`, target)})`;
  }
  const near = closestWord(second, subcommands);
  return `${unknown}: ${first} takes ${which}${near ? `; did you mean "${near}"?` : ''}`;
}
