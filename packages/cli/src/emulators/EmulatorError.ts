/** Stable codes of {@link EmulatorError}. Match on these, never on messages. */
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

/** What a newcomer has to install; every "missing tool" error ends with it. */
export const EMULATOR_REQUIREMENTS =
  "Baton's AWS tests need Java 17+ and Maven on PATH: install them (e.g. apt-get install openjdk-17-jre-headless maven)";

const MARK = Symbol.for('baton.cli.emulatorError');

/**
 * Raised when the local AWS emulators cannot be resolved or started. Recognise it with
 * {@link isEmulatorError}, which works across bundles holding two copies of this package.
 *
 * @example
 * try {
 *   await startEmulators();
 * } catch (error) {
 *   if (isEmulatorError(error) && error.code === 'JAVA_NOT_FOUND') console.error(error.message);
 *   else throw error;
 * }
 */
export class EmulatorError extends Error {
  readonly code: EmulatorErrorCode;
  /** Machine-readable facts: the emulator, the command, the output tail. */
  readonly details: Readonly<Record<string, unknown>>;

  constructor(
    code: EmulatorErrorCode,
    message: string,
    options: { details?: Readonly<Record<string, unknown>>; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'EmulatorError';
    this.code = code;
    this.details = options.details ?? {};
    Object.defineProperty(this, MARK, { value: true });
  }
}

/**
 * Whether `error` is an {@link EmulatorError} (from any copy of this package).
 *
 * @example
 * if (isEmulatorError(error)) console.error(error.code, error.message);
 */
export function isEmulatorError(error: unknown): error is EmulatorError {
  return typeof error === 'object' && error !== null && MARK in error;
}
