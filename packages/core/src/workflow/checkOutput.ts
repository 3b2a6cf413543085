import { BatonError, ErrorCode } from '../errors.ts';
import { asJson } from '../shared/asJson.ts';
import { outputTooLarge } from './journalLimits.ts';
import type { AnyWorkflowDefinition } from './workflow.ts';

/**
 * A run's return value as the instance keeps it: as JSON reads it back, accepted by the
 * workflow's `output` schema, and within what a workflow journals per value (a parent's journal
 * takes it as its child command's result). A value it refuses or that is not JSON is the run
 * failing (INVALID_STATE), one too large too (MESSAGE_TOO_LARGE): its saga unwinds as for any
 * failure of the run. `key`, the instance's, names it in the error.
 *
 * @example
 * const output = checkOutput(Checkout, { charge: 17 }); // { ok: false, error } for a string id
 */
export function checkOutput(
  definition: AnyWorkflowDefinition,
  value: unknown,
  key?: string,
): { ok: true; output: unknown } | { ok: false; error: BatonError } {
  let output: unknown;
  try {
    output = asJson(value);
  } catch (error) {
    return {
      ok: false,
      error: new BatonError(
        ErrorCode.INVALID_STATE,
        `workflow "${definition.name}" returned an output that is not JSON: ${(error as Error).message}`,
      ),
    };
  }
  const tooLarge = outputTooLarge(
    key === undefined ? `"${definition.name}"` : `"${definition.name}" ${key}`,
    output,
  );
  if (tooLarge) return { ok: false, error: tooLarge };
  if (!definition.output) return { ok: true, output };
  const parsed = definition.output.safeParse(output);
  if (parsed.success) return { ok: true, output };
  const summary = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
  return {
    ok: false,
    error: new BatonError(
      ErrorCode.INVALID_STATE,
      `workflow "${definition.name}" returned an output its output schema refuses: ${summary}`,
    ),
  };
}
