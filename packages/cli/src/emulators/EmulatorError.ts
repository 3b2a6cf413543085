import { BatonError, ErrorCode, isBatonError } from '@baton/core';

/**
 * Stable reasons of an {@link EmulatorError}. Match on these, never on messages.
 *
 * @example
 * if (isEmulatorError(error) && error.reason === EmulatorErrorCode.MAVEN_NOT_FOUND) console.error(error.message);
 */
export const EmulatorErrorCode = {
  /** No `java` on PATH (nor under `JAVA_HOME`). */
  JAVA_NOT_FOUND: 'JAVA_NOT_FOUND',
  /** `java` is older than 17. */
  JAVA_TOO_OLD: 'JAVA_TOO_OLD',
  /** The cache is cold and there is no `mvn` on PATH to fill it. */
  MAVEN_NOT_FOUND: 'MAVEN_NOT_FOUND',
  /** Maven ran and failed (no network to Maven Central, an unknown version…). */
  RESOLVE_FAILED: 'RESOLVE_FAILED',
  /** No sqlite4java native library for this OS and CPU, so DynamoDB Local cannot run here. */
  UNSUPPORTED_PLATFORM: 'UNSUPPORTED_PLATFORM',
  /** The emulator process exited before it answered. */
  START_FAILED: 'START_FAILED',
  /** The emulator process did not answer within the start timeout. */
  START_TIMEOUT: 'START_TIMEOUT',
} as const;

export type EmulatorErrorCode = (typeof EmulatorErrorCode)[keyof typeof EmulatorErrorCode];

/**
 * What a newcomer has to install; every "missing tool" error ends with it.
 *
 * @example
 * expect(error.message).toContain(EMULATOR_REQUIREMENTS);
 */
export const EMULATOR_REQUIREMENTS =
  "Baton's AWS tests need Java 17+ and Maven on PATH: install them (e.g. apt-get install openjdk-17-jre-headless maven)";

/**
 * Raised when the local AWS emulators cannot be resolved or started: a {@link BatonError} with
 * code `UNAVAILABLE`, and the precise cause in `reason`.
 *
 * @example
 * try {
 *   await startEmulators();
 * } catch (error) {
 *   if (isEmulatorError(error) && error.reason === 'JAVA_NOT_FOUND') console.error(error.message);
 *   else throw error;
 * }
 */
export class EmulatorError extends BatonError {
  readonly reason: EmulatorErrorCode;

  constructor(
    reason: EmulatorErrorCode,
    message: string,
    options: { details?: Readonly<Record<string, unknown>>; cause?: unknown } = {},
  ) {
    super(ErrorCode.UNAVAILABLE, message, {
      details: { reason, ...options.details },
      ...(options.cause === undefined ? {} : { cause: options.cause }),
    });
    this.name = 'EmulatorError';
    this.reason = reason;
  }
}

/**
 * Whether `error` is an {@link EmulatorError} (from any copy of this package).
 *
 * @example
 * if (isEmulatorError(error)) console.error(error.reason, error.message);
 */
export function isEmulatorError(error: unknown): error is EmulatorError {
  return isBatonError(error) && typeof (error as { reason?: unknown }).reason === 'string';
}
