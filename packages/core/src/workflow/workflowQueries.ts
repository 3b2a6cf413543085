/**
 * Built-in live queries over workflow instances: `workflowStatus` (a summary) and
 * `workflowHistory` (the summary and each command: its kind, name, state, result and times).
 * `defineApp` registers them for an app with workflows; subscribers see each step as it commits.
 */
import type { z } from 'zod';
import { isTrusted } from '../caller.ts';
import { type AnyQueryDefinition, query } from '../query.ts';
import {
  type JournalEntry,
  recordEntries,
  summarize,
  type WorkflowState,
  type WorkflowSummary,
} from './journal.ts';
import type { AnyWorkflowDefinition } from './workflow.ts';

/** The arguments of both queries: which workflow, which instance. */
export interface WorkflowQueryArgs {
  readonly workflow: string;
  readonly id: string;
}

/** One command of `workflowHistory`: the journal entry without its secrets. */
export type WorkflowHistoryEntry = Omit<JournalEntry, 'secret' | 'inline'>;

const args = {
  safeParse(value: unknown) {
    const v = value as Partial<WorkflowQueryArgs> | null;
    return typeof v?.workflow === 'string' && typeof v.id === 'string' && v.id.length > 0
      ? { success: true, data: { workflow: v.workflow, id: v.id } }
      : {
          success: false,
          error: { issues: [{ path: [], message: 'expected { workflow: string, id: string }' }] },
        };
  },
} as unknown as z.ZodType<WorkflowQueryArgs>;

/**
 * The two queries over `workflows`. Each is public when some workflow is, and lets a caller
 * read an instance only of a public workflow whose `authorize` allows `{ action: 'read' }`.
 *
 * @example
 * const [status, history] = workflowQueries([Checkout]);
 */
export function workflowQueries(
  workflows: readonly AnyWorkflowDefinition[],
): [AnyQueryDefinition, AnyQueryDefinition] {
  const byName = new Map(workflows.map((w) => [w.name, w]));
  const open = workflows.some((w) => w.public === true);
  const load = async (
    ctx: { get: (ref: never) => Promise<unknown> },
    { workflow, id }: WorkflowQueryArgs,
  ): Promise<WorkflowState | undefined> => {
    const definition = byName.get(workflow);
    return definition ? ((await ctx.get(definition.ref(id) as never)) as WorkflowState) : undefined;
  };
  const access = open
    ? {
        public: true,
        authorize: (caller: Parameters<typeof isTrusted>[0], a: WorkflowQueryArgs) => {
          const definition = byName.get(a.workflow);
          if (!definition) return isTrusted(caller);
          if (definition.public !== true) return false;
          return definition.authorize
            ? definition.authorize(caller, { action: 'read', id: a.id })
            : true;
        },
      }
    : {};
  const status = query({
    name: 'workflowStatus',
    args,
    ...access,
    handler: async (ctx, a: WorkflowQueryArgs): Promise<WorkflowSummary | null> => {
      const state = await load(ctx, a);
      return state ? summarize(a.id, state) : null;
    },
  });
  const history = query({
    name: 'workflowHistory',
    args,
    ...access,
    handler: async (ctx, a: WorkflowQueryArgs) => {
      const state = await load(ctx, a);
      if (!state) return null;
      const steps: WorkflowHistoryEntry[] = recordEntries(state).map(
        ({ secret: _, inline: __, ...entry }) => entry,
      );
      // Entries moved out into pages are not read back here: the record's are (pinned ones too).
      return {
        ...summarize(a.id, state),
        ...(state.sealed ? { sealed: state.sealed } : {}),
        history: steps,
      };
    },
  });
  return [status as AnyQueryDefinition, history as AnyQueryDefinition];
}
