#!/usr/bin/env node
// `npm create baton <folder>` and `pnpm create baton <folder>`: `baton init`, from @baton/cli.
import { initCommand } from '@baton/cli/init';

initCommand(process.argv.slice(2)).catch((error) => {
  console.error(error?.name === 'BatonError' ? `create-baton: ${error.message}` : error);
  process.exitCode = 1;
});
