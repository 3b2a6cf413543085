/**
 * What `baton --help` prints of the operating commands (`OPS_USAGE`), and the help of one
 * command or group (`baton dead-letters redrive --help`): its lines of the usage, then how to
 * name the deployment.
 */
export const OPS_USAGE = `Operating a deployed app:
  baton status [--limit n]                           queue depths and oldest ages, dead letters, parked, paused actors and workflows, timers due, sweeper lag
    (exit 3 when its health line says ATTENTION, with --json too: it read and found a problem;
    0 when OK, whatever it says it did not check; 1 when it could not read)
  baton backlog [--top n] [--limit n]                the actors stuck or holding messages Baton records: failing, parked, timers due,
    sends undrained, dead letters (not the inbox's per actor: SQS counts none; it says where a hot one shows)
  baton actors get <type/key> [--app <entry>]        an actor's record: version, inbox position, paused, held sends, timers
  baton actors list <type> [--app <entry>] [--limit n] [--cursor c]   a type's actors, a page at a time
    (with --app, a type the app does not define is refused, the nearest type offered: by get, for an
    id with no record; without --app, what found nothing says how --app checks the type)
  baton actors pause <type/key> [--app <entry>] [--force]   it processes nothing; its messages wait, in order
    (not an actor with no record, nor with --app of a type the app does not define: a typo?, the
    nearest type offered; not while a message fails at its head, which it would run again from
    its first attempt once resumed: end that one instead; --force pauses all the same)
  baton actors resume <type/key>                     it applies what waited, in order, then goes on
  baton actors end-failing <type/key> <message id>   the message failing at its head is dead-lettered
    at its next delivery, its handler not run again; the actor goes on with the messages behind it
  baton dead-letters list [--type t] [--code c] [--since 2h] [--app <entry>] [--limit n]
    (with --app, not a --type the app does not define, the nearest type offered; the same
    filters pick the letters of redrive --all and purge --all)
  baton dead-letters show <type/key> <message id>
  baton dead-letters redrive <type/key> <message id> | --all [filters] [--dry-run] [--force]
    (not a letter whose sender was answered DEAD_LETTERED, an actor's or a client's ask, nor one
    too old to tell whether it was applied, nor one kept in a life of its actor that has ended,
    unless --force; --all --force redrives every such letter it matches, and a too-old one applied
    already is applied again: decide about each)
  baton dead-letters purge <type/key> <message id> | --all [filters] [--dry-run] [--include-pending]
    (not the letter of an ask's timeout, which holds its asker's continuation: redrive it; an ask's
    reply purged, its ask times out, and its continuation runs once, with ASK_TIMEOUT; --all leaves
    a letter whose last redrive is not applied yet, REDRIVEN in list: purged, that redrive would
    apply nothing, unless --include-pending)
  baton queue-dead-letters list [--limit n] [--force]   what the inbox's own dead-letter queue holds
  baton queue-dead-letters redrive [--type t] [--app <entry>] [--dry-run] [--force]   moves it all (or a type's) back into the inbox
    (with --app, not a --type the app does not define, the nearest type offered; not from a queue
    the inbox's redrive policy does not name, unless --force: one it named before)
  baton timers list <type/key>
  baton timers cancel <type/key> <timer id>         it never fires (not an ask's timeout, nor a workflow's timer)
  baton workflows list [<workflow>] [--status s] [--limit n] [--cursor c]   (all: --app <entry>)
  baton workflows show <workflow> <id>               status, output or error, and each step
  baton workflows export <workflow> <id>             its whole history as JSON, to replay in CI (replayWorkflow)
  baton workflows cancel <workflow> <id> [--reason r] [--dry-run]      compensations run, then it ends
  baton workflows terminate <workflow> <id> [--reason r] [--dry-run]   it ends, no compensations
  baton workflows signal <workflow> <id> <event> [json payload] [--app <entry>] [--dry-run] [--force]
    (without --app, not an event its open waits do not name, which it cannot check: a name its
    code does not know holds its inbox for minutes; --force sends it all the same)
  baton workflows resume <workflow> <id> [--dry-run] a paused instance replays on the code running now
    (the four take --key <idempotency key> to make a retried command one, and --app <entry>)
  baton send <type/key> <name> [json payload] --app <entry> [--key <idempotency key>]
  baton ask <type/key> <name> [json payload] --app <entry> [--key k] [--timeout 30s]
  baton outcome <message id> | <type/key> <idempotency key> [--caller c]
    (a key names a message per caller: by key, the CLI's own, or with --caller a client's: anonymous,
    iam:<principal ARN>, or user:<identity JSON> as the app's auth returned it)
  baton inspect [--port 4390] [--allow-actions]     the inspector on 127.0.0.1, read-only unless allowed

Which deployment:
  --stack <name>                      a CloudFormation stack holding a BatonApp (reads its outputs)
  --local <url>                       a running baton dev --backend local-aws (e.g. http://localhost:3000)
  --table <name> [--queue-url <url>]  or the resources outright (also BATON_TABLE, BATON_INBOX_URL);
                                      the inbox is needed only to send to it (pause, resume, redrive,
                                      workflows' actions, send, ask, inspect --allow-actions): without
                                      it status and backlog leave out its depth, and say so; one an
                                      actor did not read its inbox from is refused, unless
                                      --queue-replaced (the inbox was created anew since)
  [--outbox-shards <n>]               the app's outboxShards (also BATON_OUTBOX_SHARDS); unknown,
                                      reads of every dead letter or due timer query all 100 keys
  [--dead-letter-queue-url <url>] [--timer-queue-url <url>] [--timer-dead-letter-queue-url <url>]
  [--stream-failure-queue-url <url>]
  [--dynamodb-endpoint <url>] [--sqs-endpoint <url>] [--region <r>]
  Credentials and region: the AWS SDK's default chain. A command's hints repeat the options
  above it was given (quoted), so a hint copied acts on the same deployment.

Every command: --json (for scripts), --yes (confirm a destructive action without asking),
--operator <name> (who acts, for the audit line; default: your STS identity, or local:<user>),
--help (the command's usage: baton dead-letters redrive --help).
Options go after the command or before it: baton --stack Prod status is baton status --stack Prod.
Exit codes: 0 done, 1 failed, 2 usage error, 3 status found a problem (its health line says ATTENTION).`;

/**
 * `baton <command> --help`: the usage lines of the command (or of every command of a group,
 * `dead-letters`), then how to name the deployment; undefined for no command, or none known.
 */
export function commandHelp(positionals: readonly string[]): string | undefined {
  const found = commandLines(positionals);
  if (found === undefined) return undefined;
  const shared = OPS_USAGE.slice(OPS_USAGE.indexOf('\n\nWhich deployment:') + 2);
  return `${found.lines}\n\n${shared}\nAll the commands: baton --help. The runbooks: docs/operations.md.`;
}

/**
 * What a usage error prints after saying what was wrong: the lines of the command
 * `positionals` name, and where its whole help is; the whole usage for no known command.
 */
export function usageAfterError(positionals: readonly string[]): string {
  const found = commandLines(positionals);
  return found === undefined
    ? OPS_USAGE
    : `${found.lines}\n(baton ${found.words} --help says more)`;
}

/** The usage lines of the command (or group) `positionals` begin with, and its words, if any. */
function commandLines(
  positionals: readonly string[],
): { readonly lines: string; readonly words: string } | undefined {
  const words = positionals.slice(0, 2);
  for (let n = words.length; n > 0; n--) {
    const named = words.slice(0, n).join(' ');
    const prefix = `  baton ${named}`;
    const lines = usageEntries().filter((entry) => {
      const head = entry[0]!;
      return head === prefix || head.startsWith(`${prefix} `);
    });
    if (lines.length > 0) return { lines: lines.flat().join('\n'), words: named };
  }
  return undefined;
}

/** The commands of {@link OPS_USAGE}, each its line and the indented lines that go on from it. */
function usageEntries(): string[][] {
  const body = OPS_USAGE.slice(0, OPS_USAGE.indexOf('\n\nWhich deployment:')).split('\n');
  const entries: string[][] = [];
  for (const line of body.slice(1)) {
    if (line.startsWith('  baton ')) entries.push([line]);
    else entries.at(-1)?.push(line);
  }
  return entries;
}
