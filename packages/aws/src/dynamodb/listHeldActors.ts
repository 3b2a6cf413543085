import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { WORKFLOW_RUN_THREW } from '@baton/core';
import type { FailingMessage } from '@baton/core/adapter';
import type { Item } from './itemCodec.ts';
import { scanRecords } from './scanRecords.ts';
import { Attr, actorIdOf, actorPk } from './tableLayout.ts';

/** A workflow instance paused on its own: its code did not replay its history, or its run threw. */
export interface PausedWorkflow {
  /** The instance's actor id, `wf-<workflow>/<id>`. */
  readonly id: string;
  readonly workflow: string;
  /** The instance's id within its workflow. */
  readonly instance: string;
  /** The code version that could not go on, and why (NON_DETERMINISTIC, or RETRYABLE: its run threw). */
  readonly version: string;
  readonly error: string;
  /** Its run threw an unexpected error (a bug to fix), rather than its history not replaying. */
  readonly threw: boolean;
}

/** What {@link listHeldActors} found, each list in table order. */
export interface HeldActors {
  /** The actors an operator paused, with who paused each and when (epoch ms). */
  readonly actors: ReadonlyArray<{ readonly id: string; readonly at: number; readonly by: string }>;
  /**
   * The workflow instances paused in their state (status `paused`: a deploy's code did not
   * replay their history). An operator's pause of the instance's actor lists it in `actors` as
   * any actor.
   */
  readonly workflows: readonly PausedWorkflow[];
  /** The actors whose inbox stops at a message whose handler keeps failing, and that message. */
  readonly failing: ReadonlyArray<{ readonly id: string; readonly failing: FailingMessage }>;
  /** Whether it read the whole table: `false` when it stopped at `maxItems`. */
  readonly complete: boolean;
}

/** The partition key prefix of workflow instances' actors (`wf-<workflow>/<id>`). */
const WORKFLOW_PK_PREFIX = actorPk('wf-');
/**
 * What the state of a paused instance holds, as its record stores it (JSON text): its status.
 * The same text nested deeper (a step's value) matches too; the state read back tells them apart.
 */
const PAUSED_STATUS = '"status":"paused"';

/**
 * What holds actors, as only their records say it: the actors an operator paused
 * (`pauseActor`), the workflow instances paused because their code did not replay their
 * history, and the actors stuck on a message failing at the head of their inbox
 * (`ActorRecord.failing`), whose later messages wait. For operators (`baton status`, `baton
 * backlog`). No index finds them (each is a field of a record, an instance's status one of its
 * state), so one scan of the table finds them all, reading at most `maxItems` items of every
 * kind: a tool's call, never a handler's.
 *
 * @example
 * const { actors, workflows, failing, complete } = await listHeldActors(dynamodb, 'bank-actors', {
 *   maxItems: 10_000,
 * });
 */
export async function listHeldActors(
  client: DynamoDBClient,
  tableName: string,
  {
    maxItems,
    operation = 'Scan (listHeldActors)',
  }: { readonly maxItems: number; readonly operation?: string },
): Promise<HeldActors> {
  const actors: Array<{ id: string; at: number; by: string }> = [];
  const workflows: PausedWorkflow[] = [];
  const failing: Array<{ id: string; failing: FailingMessage }> = [];
  const scan = {
    filter:
      'attribute_exists(#paused) OR attribute_exists(#failing) OR (begins_with(#pk, :wf) AND contains(#state, :pausedStatus))',
    projection: '#pk, #paused, #failing, #state',
    names: { '#paused': Attr.paused, '#failing': Attr.failing, '#state': Attr.state },
    values: { ':wf': { S: WORKFLOW_PK_PREFIX }, ':pausedStatus': { S: PAUSED_STATUS } },
    maxItems,
    operation,
  };
  const complete = await scanRecords(client, tableName, scan, (item) => {
    const pk = item[Attr.pk]?.S ?? '';
    const id = actorIdOf(pk);
    const pause = item[Attr.paused]?.S;
    if (pause !== undefined) {
      const paused = JSON.parse(pause) as { at?: number; by?: string };
      actors.push({ id, at: paused.at ?? 0, by: paused.by ?? '' });
    }
    const count = item[Attr.failing]?.S;
    if (count !== undefined) failing.push({ id, failing: JSON.parse(count) });
    const workflow = pk.startsWith(WORKFLOW_PK_PREFIX) ? pausedWorkflow(id, item) : undefined;
    if (workflow) workflows.push(workflow);
  });
  return { actors, workflows, failing, complete };
}

/** The instance `id` if its record's state says it is paused. */
function pausedWorkflow(id: string, item: Item): PausedWorkflow | undefined {
  const text = item[Attr.state]?.S;
  if (text === undefined || !text.includes(PAUSED_STATUS)) return undefined;
  const state = JSON.parse(text) as {
    status?: unknown;
    paused?: {
      version?: unknown;
      error?: { message?: unknown; details?: { reason?: unknown } };
    };
  } | null;
  const slash = id.indexOf('/');
  if (state?.status !== 'paused' || slash < 0) return undefined;
  return {
    id,
    workflow: id.slice('wf-'.length, slash),
    instance: id.slice(slash + 1),
    version: String(state.paused?.version ?? ''),
    error: String(state.paused?.error?.message ?? ''),
    threw: state.paused?.error?.details?.reason === WORKFLOW_RUN_THREW,
  };
}
