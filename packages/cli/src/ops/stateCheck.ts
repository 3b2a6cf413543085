/**
 * `actors get --app`'s check of an actor's stored state against the app: its state schema, and
 * whether the app's code reads it at all (a state of a newer version, or one its migration
 * throws on).
 */
import type { BatonError } from '@baton/core';
import { type ActorRecord, parseActorId, upgradeStateForTurn } from '@baton/core/adapter';
import type { OpsContext } from './OpsContext.ts';

/**
 * `true`, or what is wrong with the stored state for the app: what its state schema says, or
 * why the app's code will not read it — a state of a newer version (a rollback), or one its
 * `migrate` throws on (the migration is run here on a copy, as a dry run, and nothing written).
 */
export async function stateCheck(ctx: OpsContext, record: ActorRecord): Promise<true | string> {
  const app = await ctx.app('checking the state against its schema needs the app');
  const type = parseActorId(record.id)?.type;
  const definition = app.actors.find((a) => a.name === type);
  if (!definition) return `the app defines no actor type ${type}`;
  const stored = record.stateVersion ?? 1;
  const written = `written by version ${stored} of ${type}; the app has ${definition.version}`;
  if (stored > definition.version) {
    return `${written}, older: its code never migrates a state back, so every message to ${record.id} waits, then becomes a dead letter, until code of version ${stored} runs again — deploy it (roll forward), then redrive them (docs/operations.md, "Rolling back a deploy")`;
  }
  let state: unknown;
  try {
    state = upgradeStateForTurn(definition, structuredClone(record.state), stored, record.id);
  } catch (error) {
    const step = (error as BatonError).details?.migrateStep;
    const cause = (error as { cause?: unknown }).cause;
    const reason = cause instanceof Error ? cause.message : String(cause ?? error);
    return `${written}, and its migrate step from version ${step ?? stored} throws on this state (${reason}): every message to ${record.id} waits, then becomes a dead letter — fix the migration, deploy, then redrive them`;
  }
  const checked = definition.state.safeParse(state);
  // Each issue by the field it is about, which the schema's message alone does not name.
  const problems = checked.success
    ? undefined
    : checked.error.issues
        .map((i) => `${['state', ...i.path.map(String)].join('.')}: ${i.message}`)
        .join('; ');
  if (stored === definition.version) return problems ?? true;
  return problems === undefined
    ? `${written}: migrated on its next turn (its migration, run here on a copy, gives a valid state)`
    : `${written}, and the state its migration gives (run here on a copy) breaks the schema: ${problems}`;
}
