import { WORKFLOW_TYPE_PREFIX } from '../actor.ts';

/** The timer that halts an instance once its retention ends (see `_expire`). */
export const EXPIRE_TIMER = 'wf:expire';

/**
 * Whether `timer` is a workflow instance's expiry: housekeeping once the instance ended (or for
 * an id never started), not work that anything waits on.
 */
export function isRetentionTimer(timer: {
  readonly actorId: string;
  readonly id: string;
}): boolean {
  return timer.id === EXPIRE_TIMER && timer.actorId.startsWith(WORKFLOW_TYPE_PREFIX);
}
