import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { commandWord, runOps } from './runOps.ts';

/** Runs `baton <argv>` with no terminal to ask; returns its exit code and output. */
async function baton(...argv: string[]) {
  return batonWith({}, ...argv);
}

/** {@link baton} with the environment `env`. */
async function batonWith(env: Record<string, string>, ...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runOps(argv, {
    out: (line) => out.push(line),
    err: (line) => err.push(line),
    env,
    now: () => 0,
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const LOCAL = [
  '--table',
  't',
  '--queue-url',
  'http://127.0.0.1:1/000000000000/q.fifo',
  '--dynamodb-endpoint',
  'http://127.0.0.1:1',
  '--sqs-endpoint',
  'http://127.0.0.1:1',
];

describe('baton operating commands', () => {
  it('exits 2 on an unknown command, listing the commands there are', async () => {
    const { code, err } = await baton('dead-letters', 'explode');
    expect(code).toBe(2);
    expect(err).toMatch(/unknown command "dead-letters explode"[\s\S]*baton dead-letters redrive/);
  });

  it('names the subcommands of a command given none, or one it does not have', async () => {
    const none = await baton('dead-letters');
    expect(none.code).toBe(2);
    expect(none.err).not.toMatch(/unknown command/);
    expect(none.err).toMatch(
      /^baton: "dead-letters" needs a subcommand: list, show, redrive or purge \(e\.g\. baton dead-letters list\)/,
    );
    const typo = await baton('queue-dead-letters', 'lst');
    expect(typo.code).toBe(2);
    expect(typo.err).toMatch(
      /^baton: unknown command "queue-dead-letters lst": queue-dead-letters takes list or redrive; did you mean "list"\?\n/,
    );
    const far = await baton('dead-letters', 'explode');
    expect(far.err).toMatch(
      /^baton: unknown command "dead-letters explode": dead-letters takes list, show, redrive or purge\n/,
    );
  });

  it('prints the help of the command --help is given with: its usage, then how to name the deployment', async () => {
    const redrive = await baton('dead-letters', 'redrive', '--help');
    expect(redrive.code).toBe(0);
    const lines = redrive.out.split('\n');
    expect(lines[0]).toMatch(/^ {2}baton dead-letters redrive <type\/key> <message id> \| --all/);
    // Its notes go with it; no other command's line does.
    expect(redrive.out).toContain('unless --force');
    expect(lines.filter((line) => line.startsWith('  baton '))).toHaveLength(1);
    expect(redrive.out).toContain('Which deployment:');
    expect(redrive.out).toMatch(
      /All the commands: baton --help\. The runbooks: docs\/operations\.md\.$/,
    );
    // A group gives each of its commands; a word of no command, the whole usage.
    const group = await baton('dead-letters', '--help');
    expect(group.out.split('\n').filter((line) => line.startsWith('  baton '))).toEqual([
      expect.stringMatching(/^ {2}baton dead-letters list /),
      '  baton dead-letters show <type/key> <message id>',
      expect.stringMatching(/^ {2}baton dead-letters redrive /),
      expect.stringMatching(/^ {2}baton dead-letters purge /),
    ]);
    expect((await baton('dead-letters', 'explode', '--help')).out).toBe(group.out);
    expect((await baton('--help')).out).toMatch(/^Operating a deployed app:/);
    expect((await baton('nonsense', '--help')).out).toMatch(/^Operating a deployed app:/);
  });

  it('names the nearest command to a misspelt first word, and points to --help, not the whole usage', async () => {
    const typo = await baton('stauts', '--json');
    expect(typo.code).toBe(2);
    expect(typo.err).toBe(
      'baton: unknown command "stauts": did you mean "status"? baton --help lists the commands',
    );
    const actor = await baton('actor', 'list', 'tally');
    expect(actor.code).toBe(2);
    expect(actor.err).toMatch(/^baton: unknown command "actor": did you mean "actors"\?/);
  });

  it("follows a mistyped option with the command's own usage lines, not the whole usage", async () => {
    const typo = await baton('dead-letters', 'redrive', '--all', '--dryrun');
    expect(typo.code).toBe(2);
    const [error, blank, ...usage] = typo.err.split('\n');
    expect(error).toMatch(/^baton: Unknown option '--dryrun'/);
    expect(blank).toBe('');
    expect(usage[0]).toMatch(/^ {2}baton dead-letters redrive <type\/key> <message id> \| --all/);
    expect(usage.at(-1)).toBe('(baton dead-letters redrive --help says more)');
    expect(typo.err).not.toContain('Which deployment:');
    // A command of one word: the word after it is an operand, not part of its name.
    const operand = await baton('send', 'note/s', 'add', '{}', 'extra');
    expect(operand.err.split('\n').at(-1)).toBe('(baton send --help says more)');
    const foreign = await baton('timers', 'list', 'note/d', '--limit', '3');
    expect(foreign.err.split('\n').slice(2)).toEqual([
      '  baton timers list <type/key>',
      '(baton timers list --help says more)',
    ]);
  });

  it('names its next command with the target options it was given, quoted for a shell; without them, as before', async () => {
    const plain = await baton('actors', 'list', 'tally/fred');
    expect(plain.code).toBe(2);
    expect(plain.err).toBe(
      'baton actors list: it takes an actor type (tally), not an actor id: baton actors get tally/fred shows that actor',
    );
    const target = ['--stack', 'My Stack', '--region', 'eu-west-1', '--operator', 'ops'];
    const targeted = await baton('actors', 'list', 'tally/fred', ...target);
    expect(targeted.err).toBe(
      "baton actors list: it takes an actor type (tally), not an actor id: baton actors get tally/fred --stack 'My Stack' --region eu-west-1 shows that actor",
    );
    const local = await baton('dead-letters', '--local', 'http://localhost:3000');
    expect(local.err).toMatch(
      /^baton: "dead-letters" needs a subcommand: list, show, redrive or purge \(e\.g\. baton dead-letters list --local http:\/\/localhost:3000\)/,
    );
  });

  it('refuses to run without a deployment to act on, saying how to name one', async () => {
    const { code, err } = await baton('status', '--json');
    expect(code).toBe(2);
    expect(err).toBe(
      "baton status: no deployment to act on: pass --stack <name> (a stack with a BatonApp), or --table <name> (and --queue-url <inbox url> for a command that sends to the inbox, or for the inbox's depth in status and backlog; --dynamodb-endpoint/--sqs-endpoint for local emulators)",
    );
  });

  it('names the --table missing beside a --queue-url', async () => {
    const queue = await baton('actors', 'get', 'x/y', '--queue-url', 'http://q/q.fifo');
    expect(queue.code).toBe(2);
    expect(queue.err).toBe(
      "baton actors get: the inbox http://q/q.fifo is named, but not its app's table: pass --table <name> too (also BATON_TABLE), or --stack <name> instead of both",
    );
  });

  /** The table alone, where nothing answers: a command that read or sent anything would exit 1. */
  const TABLE_ALONE = [
    '--table',
    't',
    '--dynamodb-endpoint',
    'http://127.0.0.1:1',
    '--sqs-endpoint',
    'http://127.0.0.1:1',
  ];
  /** What a command that needs the inbox says, given the table alone, after why it needs it. */
  const NO_INBOX =
    ", and only the app's table t is named: pass --queue-url <inbox url> too (also BATON_INBOX_URL; the stack's Inbox queue), or --stack <name> instead";

  it.each([
    [['actors', 'pause', 'tally/p'], 'to send the actor a wake-up'],
    [['actors', 'resume', 'tally/p', '--yes'], 'to send the actor a wake-up'],
    [['dead-letters', 'redrive', 'tally/p', 'm-1'], 'to send each letter back'],
    [['dead-letters', 'redrive', '--all', '--yes'], 'to send each letter back'],
    [['queue-dead-letters', 'redrive', '--yes'], "to move its dead-letter queue's messages back"],
    [['workflows', 'cancel', 'ship', 'o-1', '--yes'], 'to send the cancel to the instance'],
    [['workflows', 'terminate', 'ship', 'o-1', '--yes'], 'to send the terminate to the instance'],
    [['workflows', 'signal', 'ship', 'o-1', 'shipped'], 'to send the signal to the instance'],
    [['workflows', 'resume', 'ship', 'o-1'], 'to send the resume to the instance'],
    [['send', 'tally/p', 'add', '{}', '--app', 'missing.ts'], 'to send the message'],
    [['ask', 'tally/p', 'add', '{}', '--app', 'missing.ts'], 'to send the message'],
  ])(
    'refuses %j given the table alone, before it reads, asks or sends anything, saying how to name the inbox',
    async (argv, why) => {
      const { code, out, err } = await baton(...argv, ...TABLE_ALONE);
      const name = argv.slice(0, ['send', 'ask'].includes(argv[0]!) ? 1 : 2).join(' ');
      expect(code).toBe(2);
      expect(out).toBe('');
      expect(err).toBe(
        `baton ${name}: it needs the app's inbox queue ${why}${NO_INBOX}; nothing was done`,
      );
    },
  );

  it('refuses a command that needs the inbox given BATON_TABLE alone too, with --json printing the error', async () => {
    const run = await batonWith(
      { BATON_TABLE: 't' },
      'actors',
      'resume',
      'tally/p',
      '--json',
      '--dynamodb-endpoint',
      'http://127.0.0.1:1',
    );
    expect(run.code).toBe(2);
    expect(JSON.parse(run.out)).toEqual({
      error: {
        code: 'INVALID_ARGUMENT',
        message: `it needs the app's inbox queue to send the actor a wake-up${NO_INBOX}; nothing was done`,
        details: { table: 't', missing: 'queue-url' },
      },
    });
    // BATON_INBOX_URL names it: the command goes on, to ask before it acts (--force: with no
    // record of the actor to read first, at an endpoint that answers nothing).
    const named = await batonWith(
      { BATON_TABLE: 't', BATON_INBOX_URL: 'http://127.0.0.1:1/000000000000/q.fifo' },
      'actors',
      'pause',
      'tally/p',
      '--force',
    );
    expect(named.code).toBe(2);
    expect(named.err).toMatch(/refused without a terminal to ask: pass --yes/);
  });

  it('refuses baton inspect --allow-actions given the table alone, saying it reads the table alone without', async () => {
    const { code, err } = await baton('inspect', '--allow-actions', '--port', '0', ...TABLE_ALONE);
    expect(code).toBe(2);
    expect(err).toBe(
      `baton inspect: it needs the app's inbox queue for the page's actions --allow-actions allows (redrive, pause, resume)${NO_INBOX} (or drop --allow-actions: the inspector reads the table alone); nothing was done`,
    );
  });

  it('lets a command that only reads the table run given the table alone', async () => {
    // Past the target: it reads the table, which nothing answers for here (exit 1, not 2).
    for (const argv of [
      ['actors', 'get', 'x/y'],
      ['actors', 'list', 'tally'],
      ['dead-letters', 'list'],
      ['dead-letters', 'show', 'tally/p', 'm-1'],
      ['dead-letters', 'purge', 'tally/p', 'm-1', '--yes'],
      ['timers', 'list', 'tally/p'],
      ['workflows', 'show', 'ship', 'o-1'],
      ['outcome', 'tally/p', 'k-1'],
      ['status'],
      ['backlog'],
    ]) {
      const { code, err } = await baton(...argv, ...TABLE_ALONE);
      expect({ argv, code }).toEqual({ argv, code: 1 });
      expect(err).not.toMatch(/inbox queue|--queue-url <inbox url>|no deployment/);
    }
  });

  it('refuses --stack or --local given with a target option it names itself, rather than drop one unseen', async () => {
    const stack = await baton('status', '--stack', 'Prod', '--table', 't', '--queue-url', 'u');
    expect(stack.code).toBe(2);
    expect(stack.err).toBe(
      "baton status: --stack names the deployment's table and queues itself, so --table, --queue-url cannot go with it: pass --stack alone, or drop it and name the resources outright (--table <name> --queue-url <inbox url> …); nothing was done",
    );
    const local = await baton('actors', 'get', 'a/b', '--local', 'http://127.0.0.1:1', ...LOCAL);
    expect(local.code).toBe(2);
    expect(local.err).toBe(
      "baton actors get: --local names the deployment's table, queues and endpoints itself, so --table, --queue-url, --dynamodb-endpoint, --sqs-endpoint cannot go with it: pass --local alone, or drop it and name the resources outright (--table <name> --queue-url <inbox url> …); nothing was done",
    );
    const both = await baton('status', '--local', 'http://127.0.0.1:1', '--stack', 'Prod');
    expect(both.err).toMatch(/^baton status: --local names .* so --stack cannot go with it/);
    // With --stack, a region and endpoints still apply: not refused for them (it fails reading
    // the stack at the unreachable endpoint, exit 1, not a usage error).
  });

  it.each([
    ['redrive', []],
    ['purge', ['--yes']],
  ])(
    'refuses dead-letters %s that names no letter, naming both forms it takes',
    async (verb, extra) => {
      const none = await baton('dead-letters', verb, ...extra, ...LOCAL);
      expect(none.code).toBe(2);
      const hint = (command: string) => `baton ${command} ${LOCAL.join(' ')}`;
      expect(none.err).toBe(
        `baton dead-letters ${verb}: missing <type/key> <message id>, or --all: dead-letters ${verb} takes <type/key> <message id> (one dead letter, as ${hint('dead-letters list')} prints them), or --all with filters (--type, --code, --since) for every one that matches — ${hint(`dead-letters ${verb} --all --dry-run`)} shows which first; nothing was done`,
      );
      const half = await baton('dead-letters', verb, 'tally/p', ...extra, ...LOCAL);
      expect(half.code).toBe(2);
      expect(half.err).toMatch(
        new RegExp(
          `^baton dead-letters ${verb}: missing the <message id> of tally/p's dead letter, after its <type/key>: dead-letters ${verb} takes <type/key> <message id> .* or --all with filters`,
        ),
      );
    },
  );

  it('refuses a destructive action without --yes when there is no terminal to ask', async () => {
    // --force: no record of the actor to read before it asks, at an endpoint that answers nothing.
    const { code, err } = await baton('actors', 'pause', 'account/alice', '--force', ...LOCAL);
    expect(code).toBe(2);
    expect(err).toMatch(/refused without a terminal to ask: pass --yes/);
  });

  it('refuses baton inspect on a bad port, and on a taken one says how to pick another', async () => {
    const bad = await baton('inspect', '--port', '70000', ...LOCAL);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--port takes a port number \(0 for any free one\)/);

    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as { port: number };
    try {
      const busy = await baton('inspect', '--port', String(port), ...LOCAL);
      expect(busy.code).toBe(1);
      expect(busy.err).toMatch(
        new RegExp(`port ${port} is taken \\(another baton inspect\\?\\): pass --port <n>`),
      );
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it.each(['30x', '1.2.3', '0', 'soon'])(
    'refuses ask --timeout %s before it sends anything, saying what it takes',
    async (timeout) => {
      const argv = ['ask', 'account/alice', 'balance', '{}', '--timeout', timeout];
      const { code, err } = await baton(...argv, '--app', 'missing.ts', ...LOCAL);
      expect(code).toBe(2);
      expect(err).toContain(
        `--timeout takes seconds above 0 (30), or a duration (30s, 2m), not "${timeout}"`,
      );
    },
  );

  it.each([
    [
      ['dead-letters', 'list', 'tally/p'],
      'it takes no operand, and "tally/p" is left over (it lists every actor\'s: narrow it to a type of actor with --type <type>)',
    ],
    [
      ['dead-letters', 'purge', 'tally/p', 'id-1', 'id-2', '--yes'],
      'it takes <type/key> <message id>, and "id-2" is left over (one dead letter at a time, or --all with filters)',
    ],
    [
      ['send', 'tally/p', 'add', '{"entry":', '1}', '--app', 'app.ts'],
      'it takes <type/key> <name> [json payload], and "1}" is left over (quote the JSON payload as one argument',
    ],
    [['status', 'now'], 'it takes no operand, and "now" is left over; nothing was done'],
    [
      ['timers', 'cancel', 'note/t', 'a', 'b', 'c', '--yes'],
      'it takes <type/key> <timer id>, and "b" "c" are left over; nothing was done',
    ],
  ])('refuses operands a command does not take, as it refuses options: %j', async (argv, says) => {
    // The deployment is unreachable: a command that went on would fail with exit 1.
    const { code, out, err } = await baton(...argv, ...LOCAL);
    expect(code).toBe(2);
    expect(out).toBe('');
    expect(err).toContain(
      `baton ${argv.slice(0, argv[0] === 'send' || argv[0] === 'status' ? 1 : 2).join(' ')}: too many arguments: ${says}`,
    );
    expect(err).toMatch(/nothing was done/);
  });

  it.each(['abc', '0', '101', '8.5'])(
    'refuses --outbox-shards %s, saying what it takes',
    async (value) => {
      const { code, err } = await baton('status', '--outbox-shards', value, ...LOCAL);
      expect(code).toBe(2);
      expect(err).toBe(
        `baton status: --outbox-shards takes the app's outboxShards, a whole number from 1 to 100, not "${value}"`,
      );
    },
  );

  it('refuses an actor id that is not <type>/<key>, with --json printing the error too', async () => {
    const { code, out, err } = await baton('actors', 'get', 'alice', '--json', ...LOCAL);
    expect(code).toBe(2);
    expect(JSON.parse(out)).toMatchObject({ error: { code: 'INVALID_ARGUMENT' } });
    expect(err).toMatch(/"alice" is not an actor id: write <type>\/<key>/);
  });

  it("says an outcome asked of a message between actors, or of a timer's fire, is kept for client messages only, and what to read instead", async () => {
    const hint = (command: string) => `baton ${command} ${LOCAL.join(' ')}`;
    // As dead-letters list prints a message one actor sent another.
    const id = 'account/bob:2unpo620wtwb.1';
    const between = await baton('outcome', id, ...LOCAL);
    expect(between.code).toBe(2);
    expect(between.err).toBe(
      `baton outcome: ${id} is the id of a message account/bob sent another actor (<sender>:<life>.<seq>), and a message between actors keeps no outcome record: outcomes are kept for client messages (a send or an ask, 'ingress:[…]'). If it was dead-lettered, it is a letter of the actor it went to (the ACTOR column of ${hint('dead-letters list')}): ${hint(`dead-letters show <type/key> ${id}`)} shows it, and ${hint(`dead-letters redrive <type/key> ${id}`)} applies it again; whether that actor applied it shows in its state: ${hint('actors get <type/key>')}`,
    );
    // One from a record written before lives, with no life in it.
    expect((await baton('outcome', 'tally/a:7', ...LOCAL)).err).toMatch(
      /^baton outcome: tally\/a:7 is the id of a message tally\/a sent another actor/,
    );
    const fire = 'timer:["note/t","soon","g1"]';
    const timer = await baton('outcome', fire, ...LOCAL);
    expect(timer.code).toBe(2);
    expect(timer.err).toBe(
      `baton outcome: '${fire}' is the id of a timer's fire at note/t, and a fire keeps no outcome record: outcomes are kept for client messages (a send or an ask, 'ingress:[…]'). ${hint('timers list note/t')} lists its timers still to fire, and ${hint(`dead-letters show note/t '${fire}'`)} shows the fire if it was dead-lettered`,
    );
    // An actor id still wants its key after it.
    expect((await baton('outcome', 'account/bob', ...LOCAL)).err).toMatch(
      /account\/bob is an actor id: give the key after it\./,
    );
  });

  it('takes options before the command as after it, refusing one the command does not take', async () => {
    const before = await baton(...LOCAL, 'status', 'now');
    expect(before.code).toBe(2);
    expect(before.err).toContain(
      'baton status: too many arguments: it takes no operand, and "now" is left over',
    );
    const foreign = await baton('--dry-run', ...LOCAL, 'actors', 'pause', 'tally/p', '--yes');
    expect(foreign.code).toBe(2);
    expect(foreign.err).toMatch(/^baton actors pause: it takes no --dry-run/);
    const none = await baton('--stack', 'Prod', '--json');
    expect(none.code).toBe(2);
    expect(none.err).toBe('baton: no command: baton --help lists the commands');
  });

  it('finds the command word after the options, each taking its value', () => {
    expect(commandWord(['--stack', 'Prod', 'status'])).toBe('status');
    expect(commandWord(['--stack', 'status', '--json', 'actors', 'get', 'a/b'])).toBe('actors');
    expect(commandWord(['--stack=Prod', '-y', '--port', '3000', 'dev', 'app.ts'])).toBe('dev');
    expect(commandWord(['--stack', 'Prod'])).toBeUndefined();
  });

  it("reads past the options it is also given with their values: dev's, init's", () => {
    const dev = { backend: { type: 'string' }, 'in-memory': { type: 'boolean' } } as const;
    expect(commandWord(['--backend', 'local-aws', 'dev', 'app.ts'])).toBe('local-aws');
    expect(commandWord(['--backend', 'local-aws', 'dev', 'app.ts'], dev)).toBe('dev');
    expect(commandWord(['--in-memory', '--stack', 'Prod', 'dev'], dev)).toBe('dev');
    // Its own options keep their kind: --json takes no value.
    expect(commandWord(['--json', 'status'], dev)).toBe('status');
  });

  describe('with the resources named outright, and no region or credentials found', () => {
    /** Runs `fn` with the environment changed as `changes` says (undefined: unset), then as before. */
    async function withEnv<T>(changes: Record<string, string | undefined>, fn: () => Promise<T>) {
      const before = Object.fromEntries(Object.keys(changes).map((k) => [k, process.env[k]]));
      const apply = (values: Record<string, string | undefined>) => {
        for (const [k, v] of Object.entries(values)) {
          if (v === undefined) delete process.env[k];
          else process.env[k] = v;
        }
      };
      apply(changes);
      try {
        return await fn();
      } finally {
        apply(before);
      }
    }
    const noProfile = {
      AWS_PROFILE: undefined,
      AWS_CONFIG_FILE: '/nonexistent/baton-test-config',
      AWS_SHARED_CREDENTIALS_FILE: '/nonexistent/baton-test-credentials',
      AWS_EC2_METADATA_DISABLED: 'true',
    };
    const named = ['--table', 't', '--queue-url', 'https://sqs.eu-west-1.amazonaws.com/1/q.fifo'];

    it('says where the region comes from, as the --stack path does', async () => {
      const run = await withEnv(
        { ...noProfile, AWS_REGION: undefined, AWS_DEFAULT_REGION: undefined },
        () => baton('actors', 'get', 'a/b', ...named),
      );
      expect(run.code).toBe(1);
      expect(run.err).toMatch(/^baton actors get: .*Region is missing/);
      expect(run.err.split('\n').at(-1)).toBe(
        '  no region was found: pass --region <r> (or set AWS_REGION, or a region in your AWS profile); check too the names (--stack, or --table and --queue-url) and the region (--region or AWS_REGION)',
      );
    });

    it('says to check the credentials, as the --stack path does', async () => {
      const run = await withEnv(
        {
          ...noProfile,
          AWS_REGION: 'eu-west-1',
          AWS_ACCESS_KEY_ID: undefined,
          AWS_SECRET_ACCESS_KEY: undefined,
          AWS_SESSION_TOKEN: undefined,
          AWS_CONTAINER_CREDENTIALS_RELATIVE_URI: undefined,
          AWS_CONTAINER_CREDENTIALS_FULL_URI: undefined,
          AWS_WEB_IDENTITY_TOKEN_FILE: undefined,
        },
        // An endpoint no name resolves to (not a loopback one, which gets local credentials):
        // nothing leaves the host, credentials or not.
        () => baton('actors', 'get', 'a/b', ...named, '--dynamodb-endpoint', 'http://db.invalid'),
      );
      expect(run.code).toBe(1);
      expect(run.err).toMatch(/credentials/i);
      expect(run.err.split('\n').at(-1)).toBe(
        '  no credentials were found, or they were refused: check your credentials (AWS_PROFILE, or the AWS_ACCESS_KEY_ID of the account the app runs in; `aws sts get-caller-identity` shows whose they are); check too the names (--stack, or --table and --queue-url) and the region (--region or AWS_REGION)',
      );
    });
  });
});
