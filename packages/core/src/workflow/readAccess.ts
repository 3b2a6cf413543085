/**
 * Who may read a workflow instance (its status, output, error and history): one rule for the
 * client's reads, the workflow queries, and the replies of `start`, `signal` and `cancel`.
 */
import { type Caller, isTrusted } from '../caller.ts';
import type { AnyWorkflowDefinition } from './workflow.ts';

/**
 * Whether `caller` may read instance `id` of `definition`: trusted code always; another caller
 * only of a public workflow whose `authorize`, if it has one, returns `true` for
 * `{ action: 'read' }`. An `authorize` that throws refuses, as at the door: the replies of a
 * start, signal or cancel ask this inside their turn, which a throw would fail.
 */
export function mayReadWorkflow(
  definition: Pick<AnyWorkflowDefinition, 'public' | 'authorize'>,
  caller: Caller,
  id: string,
): boolean {
  if (isTrusted(caller)) return true;
  if (definition.public !== true) return false;
  const { authorize } = definition;
  if (!authorize) return true;
  try {
    return authorize(caller, { action: 'read', id }) === true;
  } catch {
    return false;
  }
}
