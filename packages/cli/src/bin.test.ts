import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const BIN = join(import.meta.dirname, '..', 'bin', 'baton.js');

/** Runs the `baton` command as a user does; its exit code and output. */
async function baton(...argv: string[]) {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [BIN, ...argv]);
    return { code: 0, out: stdout, err: stderr };
  } catch (error) {
    const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
    return { code, out: stdout, err: stderr };
  }
}

describe('baton with a misspelt command', () => {
  it('names the word and the nearest command, and points to --help, not the whole usage', async () => {
    const typo = await baton('stauts');
    expect(typo.code).toBe(2);
    expect(typo.err.trim()).toBe(
      'baton: unknown command "stauts": did you mean "status"? baton --help lists the commands',
    );
    expect(typo.out).toBe('');

    const actor = await baton('actor', 'list', 'tally');
    expect(actor.code).toBe(2);
    expect(actor.err.trim()).toBe(
      'baton: unknown command "actor": did you mean "actors"? baton --help lists the commands',
    );

    const far = await baton('frobnicate');
    expect(far.code).toBe(2);
    expect(far.err.trim()).toBe(
      'baton: unknown command "frobnicate": baton --help lists the commands',
    );
  }, 60_000);
});

describe('baton with options before the command', () => {
  it('runs an operating command given them before it as after it, and refuses one it does not take', async () => {
    const [status, targeted, foreign, unknown] = await Promise.all([
      baton('--json', 'status'),
      baton('--stack', 'My Stack', '--region', 'eu-west-1', 'actors', 'list', 'tally/fred'),
      baton('--dry-run', 'actors', 'pause', 'tally/fred'),
      baton('--stack', 'Prod', 'stauts'),
    ]);
    // `status` ran, with --json: it refuses only for want of a deployment to act on.
    expect(status.code).toBe(2);
    expect(status.err).not.toMatch(/unknown command/);
    expect(JSON.parse(status.out)).toMatchObject({ error: { code: 'INVALID_ARGUMENT' } });
    expect(status.err).toMatch(/^baton status: no deployment to act on: pass --stack <name>/);

    expect(targeted.code).toBe(2);
    expect(targeted.err.trim()).toBe(
      "baton actors list: it takes an actor type (tally), not an actor id: baton actors get tally/fred --stack 'My Stack' --region eu-west-1 shows that actor",
    );

    expect(foreign.code).toBe(2);
    expect(foreign.err).toMatch(
      /^baton actors pause: it takes no --dry-run \(its own options: --app, --force, --queue-replaced\); nothing was done\n/,
    );

    expect(unknown.code).toBe(2);
    expect(unknown.err.trim()).toBe(
      'baton: unknown command "stauts": did you mean "status"? baton --help lists the commands',
    );
  }, 60_000);

  it('keeps --help, and says where init and dev take theirs, and when no command follows', async () => {
    const [help, opsHelp, dev, init, none] = await Promise.all([
      baton('--help'),
      baton('--stack', 'Prod', '--help'),
      baton('--port', '3000', 'dev', 'src/app.ts'),
      baton('--json', 'init', 'my-app'),
      baton('--stack', 'Prod'),
    ]);
    expect(help.code).toBe(0);
    expect(help.out).toMatch(/^baton — Baton's command line\n[\s\S]*Usage: baton dev <app entry>/);
    expect(opsHelp.code).toBe(0);
    expect(opsHelp.out).toMatch(/^Operating a deployed app:\n/);

    expect(dev.code).toBe(2);
    expect(dev.err.trim()).toBe(
      "baton: dev's options go after it (baton dev --help): only the operating commands take them before",
    );
    expect(init.code).toBe(2);
    expect(init.err.trim()).toBe(
      "baton: init's options go after it (baton init --help): only the operating commands take them before",
    );

    expect(none.code).toBe(2);
    expect(none.err.trim()).toBe('baton: no command: baton --help lists the commands');
  }, 60_000);

  it('says an option only dev or init takes goes after its word, its value not read as the command', async () => {
    const runs = await Promise.all([
      baton('--backend', 'local-aws', 'dev', 'src/app.ts'),
      baton('--data-dir', '.data', '--log-level', 'debug', 'dev', 'src/app.ts'),
      baton('--allow-origin', 'http://localhost:5173', '--in-memory', 'dev', 'src/app.ts'),
      baton('--port', '4000', '--backend', 'local-aws', 'dev'),
      baton('--from', '../packed', 'init', 'my-app'),
    ]);
    const [init, ...devs] = [runs[4]!, ...runs.slice(0, 4)];
    for (const dev of devs) {
      expect(dev.code).toBe(2);
      expect(dev.err.trim()).toBe(
        "baton: dev's options go after it (baton dev --help): only the operating commands take them before",
      );
      expect(dev.out).toBe('');
    }
    expect(init.code).toBe(2);
    expect(init.err.trim()).toBe(
      "baton: init's options go after it (baton init --help): only the operating commands take them before",
    );
  }, 60_000);
});

describe('baton operating a deployment on Node 20', () => {
  it('prints no AWS SDK notice about Node.js versions, unless the environment asks for it', async () => {
    const argv = [
      ...['actors', 'get', 'tally/a', '--table', 't'],
      ...['--queue-url', 'http://127.0.0.1:1/000000000000/q.fifo'],
      ...['--dynamodb-endpoint', 'http://127.0.0.1:1', '--sqs-endpoint', 'http://127.0.0.1:1'],
    ];
    const run = async (env: Record<string, string>) => {
      const { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: _, ...rest } = process.env;
      try {
        await promisify(execFile)(process.execPath, [BIN, ...argv], { env: { ...rest, ...env } });
        return '';
      } catch (error) {
        return (error as { stderr: string }).stderr;
      }
    };
    const [quiet, asked] = await Promise.all([
      run({}),
      run({ AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'false' }),
    ]);
    // It failed reaching DynamoDB (nothing answers on port 1), saying so, and only that.
    expect(quiet).toMatch(
      /^baton actors get: could not connect to DynamoDB at http:\/\/127\.0\.0\.1:1 /,
    );
    expect(quiet).not.toMatch(/NodeVersionSupportWarning/);
    // The SDK warns below Node 22: there, the environment that asks for it gets it still.
    if (Number(process.versions.node.split('.')[0]) < 22) {
      expect(asked).toMatch(/NodeVersionSupportWarning/);
    }
  }, 60_000);
});
