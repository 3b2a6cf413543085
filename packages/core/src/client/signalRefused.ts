import { BatonError, ErrorCode } from '../errors.ts';
import type { WorkflowRef } from '../workflow/workflow.ts';

interface Issue {
  readonly path: string;
  readonly message: string;
}

/**
 * A signal the door refused (INVALID_PAYLOAD), said in terms of the event rather than of the
 * `signal` message that carries it: which event, what was wrong with it, and that nothing was
 * sent. Any other error is returned as it is.
 */
export function signalRefused(error: unknown, ref: WorkflowRef, event: string): unknown {
  if (!(error instanceof BatonError) || error.code !== ErrorCode.INVALID_PAYLOAD) return error;
  const issues = (error.details.issues ?? []) as readonly Issue[];
  const named = issues.find((issue) => issue.path === 'payload.name');
  const problems = named
    ? named.message
    : issues
        .map((issue) => `${issue.path.replace(/^payload\.payload/, 'payload')}: ${issue.message}`)
        .concat(
          typeof error.details.moreIssues === 'number'
            ? [`and ${error.details.moreIssues} more`]
            : [],
        )
        .join('; ');
  const next = named
    ? "send one of the events the workflow's `events` declare"
    : "send the payload its schema in the workflow's `events` takes";
  return new BatonError(
    ErrorCode.INVALID_PAYLOAD,
    `workflow "${ref.workflow ?? ref.type}" (instance "${ref.key}") refused event "${event}": ${problems}. Nothing was sent: ${next}`,
    { details: { ...error.details, event }, cause: error },
  );
}
