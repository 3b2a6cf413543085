#!/usr/bin/env node
/**
 * The `baton` command: `baton init <folder>` (a new app), `baton dev <app entry>` (see
 * `baton dev --help`), and the commands that operate a deployed app (`baton status`,
 * `baton actors …`, `baton dead-letters …`; see `baton --help`).
 */
import { ErrorCode, isBatonError } from '@baton/core';
import { DEV_OPTIONS, USAGE } from './dev/DevOptions.ts';
import { devCommand } from './dev/devCommand.ts';
import { INIT_OPTIONS, INIT_USAGE, initCommand } from './init/initCommand.ts';
import { processIo } from './ops/OpsIo.ts';
import { OPS_USAGE } from './ops/opsUsage.ts';
import { commandWord, isOpsCommand, OPS_WORDS, runOps } from './ops/runOps.ts';
import { quietSdkNodeWarning } from './sdkNodeWarning.ts';
import { unknownTopCommand } from './unknownCommand.ts';

const argv = process.argv.slice(2);
const [command, ...args] = argv;

async function main(): Promise<void> {
  if (command === undefined || command === '-h' || command === '--help' || command === 'help') {
    console.log(`baton — Baton's command line\n\n${INIT_USAGE}\n\n${USAGE}\n\n${OPS_USAGE}`);
    return;
  }
  if (command.startsWith('-')) {
    // Options before the command (`baton --stack Prod status`), as after it, for the operating
    // commands; `init` and `dev` read theirs after their word only. Their own options are read
    // past with their values, so `baton --backend local-aws dev` finds `dev`, not `local-aws`.
    const word = commandWord(argv, { ...DEV_OPTIONS, ...INIT_OPTIONS });
    if (word === 'init' || word === 'dev') {
      console.error(
        `baton: ${word}'s options go after it (baton ${word} --help): only the operating commands take them before`,
      );
      process.exitCode = 2;
      return;
    }
    process.exitCode = await runOps(argv, opsIo());
    return;
  }
  if (isOpsCommand(command)) {
    process.exitCode = await runOps(argv, opsIo());
    return;
  }
  if (command === 'init') return initCommand(args);
  if (command !== 'dev') {
    console.error(`baton: ${unknownTopCommand(command, ['init', 'dev', ...OPS_WORDS, 'help'])}`);
    process.exitCode = 2;
    return;
  }
  await devCommand(args);
}

/** The process's streams for an operating command, without the AWS SDK's Node.js version notice. */
function opsIo() {
  quietSdkNodeWarning();
  return processIo();
}

main().catch((error: unknown) => {
  console.error(isBatonError(error) ? `baton: ${error.message}` : error);
  // 2 is a usage error, as for the operating commands; anything else failed (1).
  process.exitCode = isBatonError(error) && error.code === ErrorCode.INVALID_ARGUMENT ? 2 : 1;
});
