/**
 * The built-in queries of an app's workflows (`workflowStatus`, `workflowHistory`), as
 * `defineApp` adds them. Each workflow carries the function that makes them (`workflow()` sets
 * it), so that an app without workflows — a worker's bundle of it — holds none of their code.
 */
import type { AnyQueryDefinition } from '../query.ts';
import type { AnyWorkflowDefinition } from './workflow.ts';

/** Where a workflow definition keeps the function that makes its built-in queries. */
export const BUILT_IN_QUERIES = Symbol.for('baton.workflowQueries');

type MakeQueries = (workflows: readonly AnyWorkflowDefinition[]) => AnyQueryDefinition[];

/** The built-in queries of `workflows`; none without workflows. */
export function builtInQueries(workflows: readonly AnyWorkflowDefinition[]): AnyQueryDefinition[] {
  const make = (workflows[0] as Record<symbol, MakeQueries | undefined> | undefined)?.[
    BUILT_IN_QUERIES
  ];
  return make ? make(workflows) : [];
}
