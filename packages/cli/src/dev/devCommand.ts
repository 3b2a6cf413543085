import { parseDevArgs, USAGE } from './DevOptions.ts';
import { type DevServer, startDev } from './startDev.ts';

/** Signals this close together are one Ctrl-C, delivered twice (see {@link devCommand}). */
const SAME_CTRL_C_MS = 1000;

/**
 * `baton dev <args>`: starts the dev server and stops it on Ctrl-C (SIGINT) or SIGTERM — the app
 * process first, then the servers, then any emulators — exiting 0; a second Ctrl-C stops at
 * once (130). The signals are watched from the start, so a Ctrl-C while it starts up stops it
 * once it is up.
 */
export async function devCommand(args: readonly string[]): Promise<void> {
  if (args.includes('-h') || args.includes('--help')) {
    console.log(USAGE);
    return;
  }
  const options = parseDevArgs(args, process.cwd());
  let stopping: number | undefined;
  let started: Promise<DevServer> | undefined;
  const stop = () => {
    // pnpm and npm pass the terminal's Ctrl-C on to their script, which has it already: a
    // second SIGINT right after the first is that same Ctrl-C, not a second one.
    if (stopping !== undefined && Date.now() - stopping < SAME_CTRL_C_MS) return;
    if (stopping !== undefined) {
      console.log('baton dev: stopping at once');
      process.exit(130);
    }
    stopping = Date.now();
    console.log('\nbaton dev: stopping (Ctrl-C again to stop at once)');
    started!
      .then((server) => server.close())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          console.error('baton dev: could not stop cleanly:', error);
          process.exit(1);
        },
      );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  started = startDev(options);
  await started;
}
