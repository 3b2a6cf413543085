/**
 * `@baton/cli/ops`: the operating commands as a function, for scripts and tests that run
 * `baton status`, `baton dead-letters redrive` … in-process.
 */

export {
  type InspectorOptions,
  type RunningInspector,
  startInspector,
} from './inspect/inspectServer.ts';
export { type OpsIo, processIo } from './OpsIo.ts';
export { OPS_USAGE } from './opsUsage.ts';
export { isOpsCommand, runOps } from './runOps.ts';
export {
  namesFromOutputs,
  OUTPUT_PREFIX,
  resolveTarget,
  type Target,
  type TargetNames,
  type TargetOptions,
} from './target.ts';
