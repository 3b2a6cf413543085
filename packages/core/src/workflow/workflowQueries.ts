/**
 * Built-in live queries over workflow instances: `workflowStatus` (a summary) and
 * `workflowHistory` (the summary and each command: its kind, name, state, result and times).
 * `defineApp` registers them for an app with workflows; subscribers see each step as it commits.
 */
import type * as z from 'zod';
import { isTrusted } from '../caller.ts';
import { QUERY_PAGES, type ReadPages } from '../contextSlots.ts';
import { type AnyQueryDefinition, query } from '../query.ts';
import { HISTORY_WINDOW, historyWindow } from './history.ts';
import {
  type JournalEntry,
  summarize,
  type WorkflowState,
  type WorkflowSummary,
} from './journal.ts';
import { mayReadWorkflow } from './readAccess.ts';
import { BATON_PATCH } from './sagaStart.ts';
import type { AnyWorkflowDefinition } from './workflow.ts';

/**
 * The arguments of both queries: which workflow, which instance; for `workflowHistory`, the
 * entries numbered below `before` (the newest {@link HISTORY_WINDOW} of them; default: of all).
 */
export interface WorkflowQueryArgs {
  readonly workflow: string;
  readonly id: string;
  readonly before?: number;
}

/** One command of `workflowHistory`: the journal entry without its secrets. */
export type WorkflowHistoryEntry = Omit<JournalEntry, 'secret' | 'inline'>;

const args = {
  safeParse(value: unknown) {
    const v = value as Partial<WorkflowQueryArgs> | null;
    const before = v?.before;
    const beforeOk =
      before === undefined ||
      (typeof before === 'number' && Number.isInteger(before) && before >= 0);
    return typeof v?.workflow === 'string' &&
      typeof v.id === 'string' &&
      v.id.length > 0 &&
      beforeOk
      ? {
          success: true,
          data: { workflow: v.workflow, id: v.id, ...(before === undefined ? {} : { before }) },
        }
      : {
          success: false,
          error: {
            issues: [
              {
                path: [],
                message: 'expected { workflow: string, id: string, before?: integer >= 0 }',
              },
            ],
          },
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
          return mayReadWorkflow(definition, caller, a.id);
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
      // The newest entries (below `before`), read back from the pages as far as they take.
      const pages = (ctx as unknown as Record<symbol, ReadPages | undefined>)[QUERY_PAGES];
      const id = byName.get(a.workflow)?.ref(a.id).id as string;
      const window = await historyWindow(
        state,
        pages ? (ids) => pages(id, ids) : undefined,
        a.before === undefined ? {} : { before: a.before },
      );
      // Baton's own markers (`baton:` patches, which record how a saga undoes) are not the
      // run's steps: a view that lists the history shows the app's alone.
      const steps: WorkflowHistoryEntry[] = window.entries
        .filter((entry) => !(entry.kind === 'patch' && entry.name.startsWith(BATON_PATCH)))
        .map(({ secret: _, inline: __, ...entry }) => entry);
      return {
        ...summarize(a.id, state),
        ...(state.sealed
          ? { sealed: { entries: state.sealed.entries, pages: state.sealed.pages } }
          : {}),
        history: steps,
        // Entries before the first shown are left out: ask again with `before` its number.
        older: window.older,
      };
    },
  });
  return [status as AnyQueryDefinition, history as AnyQueryDefinition];
}
