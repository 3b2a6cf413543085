/**
 * @baton/cli — the developer tooling around Baton: `baton dev` (the `baton` bin; `startDev` from
 * code) and the local AWS emulator launcher (DynamoDB Local and ElasticMQ as real processes)
 * used by the test setup and by `baton dev --backend local-aws`.
 */

export { type DevOptions, defaultDataDir, parseDevArgs } from './dev/DevOptions.ts';
export { type DevServer, startDev } from './dev/startDev.ts';
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
