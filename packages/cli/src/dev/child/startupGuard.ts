/**
 * The app process's first module, ahead of the app's entry in its bundle: an error the entry
 * throws while it loads — `defineApp`'s refusal of an invalid app (two actor types of one name,
 * say), or any throw at its top level — is told to the supervisor as a failed start, which it
 * prints in one line as it does the others, rather than left to Node, which would print it as an
 * uncaught exception with its stack. The bundle takes the guard down once the entry has loaded.
 */
import { isBatonError } from '@baton/core';
import type { ChildMessage } from '../protocol.ts';

/**
 * What a failed start says of `error`, thrown while the entry loaded: a Baton error's message
 * (it says what is wrong, and where in the app); anything else with its stack, which points into
 * the app's source.
 *
 * @example
 * loadFailure(new BatonError('INVALID_ARGUMENT', 'invalid app: two actor types are named "cart"'));
 * // 'invalid app: two actor types are named "cart"'
 */
export function loadFailure(error: unknown): string {
  if (isBatonError(error)) return error.message;
  const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
  return `the entry threw while it loaded: ${text}`;
}

const onLoadError = (error: unknown): void => {
  const message: ChildMessage = { type: 'failed', message: loadFailure(error) };
  // Exits once the message is on its way (an exit at once may drop it).
  if (process.send && process.connected) process.send(message, () => process.exit(1));
  else process.exit(1);
};

process.once('uncaughtException', onLoadError);

/** Takes the guard down: the entry loaded, and `runApp` tells what fails from here on. */
export function entryLoaded(): void {
  process.off('uncaughtException', onLoadError);
}
