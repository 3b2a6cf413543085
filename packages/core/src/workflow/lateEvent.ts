import { BatonError, ErrorCode } from '../errors.ts';
import type { WorkflowStatus } from './journal.ts';

/**
 * The refusal of event `name` sent to instance `key` after it ended with `status`: it is not
 * taken (no later run of the id gets it either). Its turn says so, and the door before anything
 * is enqueued; the status only to a caller who may read the instance (`readable`).
 */
export function endedBeforeEvent(
  key: string,
  status: WorkflowStatus,
  name: string,
  readable: boolean,
): BatonError {
  return new BatonError(
    ErrorCode.REJECTED,
    `workflow instance ${key} ended${readable ? ` (${status})` : ''} before event "${name}" came: an ended instance takes no event, so this one was not taken. ${readable ? 'Read its status, output or error (client.workflowStatus), or start' : 'Start'} another id for a new run`,
    { details: readable ? { id: key, event: name, status } : { id: key, event: name } },
  );
}
