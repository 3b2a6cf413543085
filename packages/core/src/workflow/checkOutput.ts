import { BatonError, ErrorCode } from '../errors.ts';
import { asJson } from '../shared/asJson.ts';
import type { AnyWorkflowDefinition } from './workflow.ts';

/**
 * A run's return value as the instance keeps it: as JSON reads it back, and accepted by the
 * workflow's `output` schema. A value it refuses, or that is not JSON, is the run failing
 * (INVALID_STATE): its saga unwinds as for any failure of the run.
 *
 * @example
 * const output = checkOutput(Checkout, { charge: 17 }); // { ok: false, error } for a string id
 */
export function checkOutput(
  definition: AnyWorkflowDefinition,
  value: unknown,
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
