/**
 * `ctx.setProgress`: what a run tells its readers of where it stands (a stage, counts), kept in
 * the instance's record beside its status, so `workflowStatus`, `useWorkflow` and `baton
 * workflows show` give it, live. It is no command: a replay sets it again as the run goes, so
 * what a turn commits is the last value the run gave up to where it stopped in that turn.
 */
import { BatonError, ErrorCode } from '../errors.ts';
import { asJson, asStrictJson } from '../shared/asJson.ts';
import { jsonSize } from '../shared/jsonSize.ts';
import { schemaIssues } from '../shared/schemaIssues.ts';
import type { AnyWorkflowDefinition } from './workflow.ts';

/**
 * The largest progress a run may set, as JSON: it is written with each turn of the instance and
 * pushed to each reader on each change, so it is meant to be small.
 */
export const MAX_PROGRESS_BYTES = 16 * 1024;

/** What the worker logs (at warn) for a `ctx.setProgress` inside a step's function: ignored. */
export const PROGRESS_IN_STEP_LOG =
  "ctx.setProgress inside a step's or a compensation's function is ignored (a replay does not run it again): call it from the run's code, before or after the step";

/**
 * `value` as the record keeps it (its JSON), once the workflow's `progress` schema took it and
 * within {@link MAX_PROGRESS_BYTES}. Throws INVALID_ARGUMENT, saying what is wrong: a misuse of
 * `ctx`, which pauses the run until fixed code runs.
 */
export function checkedProgress(
  definition: AnyWorkflowDefinition,
  value: unknown,
  strict = true,
): unknown {
  // A misuse the run throws: its pause says it (RUN_THREW), the message whole.
  const refused = (why: string) =>
    new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      `ctx.setProgress of workflow "${definition.name}": ${why}`,
    );
  // The value as given: a schema of Dates takes a Date, which JSON keeps as its ISO string.
  const parsed = definition.progress?.safeParse(value);
  if (parsed && !parsed.success) {
    const { summary } = schemaIssues('progress', parsed.error.issues);
    throw refused(`the workflow's progress schema refuses the value (${summary})`);
  }
  let json: unknown;
  try {
    // A Map or a Set is refused: JSON would keep it as {}, its entries lost (runs started
    // earlier replay as they ran, keeping it so: see `rules` in the record).
    json = strict ? asStrictJson(value) : asJson(value);
  } catch (error) {
    throw refused(`the value is not JSON (${(error as Error).message}): give plain data`);
  }
  if (json === undefined) {
    throw refused('the value is not JSON (undefined): give plain data, or null');
  }
  const size = jsonSize(json);
  if (size > MAX_PROGRESS_BYTES) {
    throw refused(
      `the value is ${size} bytes, more than the ${MAX_PROGRESS_BYTES} progress may take: keep it to what a reader shows (a stage, counts) and store large data elsewhere`,
    );
  }
  return json;
}
