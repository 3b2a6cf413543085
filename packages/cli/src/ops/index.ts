/**
 * `@baton/cli/ops`: the operating commands as a function, for scripts and tests that run
 * `baton status`, `baton dead-letters redrive` … in-process.
 */
export { type OpsIo, processIo } from './OpsIo.ts';
export { isOpsCommand, OPS_USAGE, runOps } from './runOps.ts';
export { namesFromOutputs, OUTPUT_PREFIX, type TargetNames } from './target.ts';
