/**
 * @baton/cli — the developer tooling around Baton. Today: the local AWS emulator launcher
 * (DynamoDB Local and ElasticMQ as real processes) used by the test setup and, later, by
 * `baton dev --backend local-aws`.
 */

export { defaultEmulatorCacheDir } from './emulators/defaultEmulatorCacheDir.ts';
export {
  EMULATOR_REQUIREMENTS,
  EmulatorError,
  EmulatorErrorCode,
  isEmulatorError,
} from './emulators/EmulatorError.ts';
export {
  EMULATOR_VERSIONS,
  type EmulatorOptions,
  type RunningEmulator,
} from './emulators/EmulatorOptions.ts';
export { type DynamoDbLocalOptions, startDynamoDbLocal } from './emulators/startDynamoDbLocal.ts';
export { type ElasticMqOptions, startElasticMq } from './emulators/startElasticMq.ts';
export {
  type Emulators,
  type StartEmulatorsOptions,
  startEmulators,
} from './emulators/startEmulators.ts';
