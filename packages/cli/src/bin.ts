#!/usr/bin/env node
/**
 * The `baton` command: `baton dev <app entry>` (see `baton dev --help`), and the commands that
 * operate a deployed app (`baton status`, `baton actors …`, `baton dead-letters …`; see
 * `baton --help`).
 */
import { isBatonError } from '@baton/core';
import { parseDevArgs, USAGE } from './dev/DevOptions.ts';
import { startDev } from './dev/startDev.ts';
import { processIo } from './ops/OpsIo.ts';
import { isOpsCommand, OPS_USAGE, runOps } from './ops/runOps.ts';

const [command, ...args] = process.argv.slice(2);

async function main(): Promise<void> {
  if (command === undefined || command === '-h' || command === '--help' || command === 'help') {
    console.log(`baton — Baton's command line\n\n${USAGE}\n\n${OPS_USAGE}`);
    return;
  }
  if (isOpsCommand(command)) {
    process.exitCode = await runOps([command, ...args], processIo());
    return;
  }
  if (command !== 'dev') {
    console.error(`baton: unknown command "${command}"\n\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  if (args.includes('-h') || args.includes('--help')) {
    console.log(USAGE);
    return;
  }
  const options = parseDevArgs(args, process.cwd());
  const server = await startDev(options);
  let stopping = false;
  // The app process first, then the servers, then any emulators (see DevServer.close).
  const stop = () => {
    if (stopping) {
      console.log('baton dev: stopping at once');
      process.exit(130);
    }
    stopping = true;
    console.log('\nbaton dev: stopping (Ctrl-C again to stop at once)');
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error('baton dev: could not stop cleanly:', error);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(isBatonError(error) ? `baton: ${error.message}` : error);
  process.exitCode = isBatonError(error) ? 2 : 1;
});
