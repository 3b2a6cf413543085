/**
 * Whether an actor id an operator typed names an actor there is: one of a type the app defines
 * (with `--app`), with a record in the table. `actors pause` refuses one that is not, unless
 * `--force`, as `workflows signal` refuses an event the instance does not wait for: a pause of a
 * misspelt id holds no actor's messages, and leaves the actor meant running, unseen.
 */
import { BatonError, ErrorCode } from '@baton/core';
import { type ActorRecord, parseActorId } from '@baton/core/adapter';
import { appTypes, typeRefusal } from './knownType.ts';
import type { OpsContext } from './OpsContext.ts';

/** What a refusal of {@link knownActor} says of the command that asked. */
export interface KnownActorUse {
  /** The command again, on actor `id` (the near spelling of the one typed). */
  readonly again: (id: string) => string;
  /** How to act all the same: `--force …`. */
  readonly force: string;
}

/**
 * The record of actor `id`, for a command that acts on it: refused (INVALID_ARGUMENT, before
 * anything changes) when `--app` defines no actor type of the id's, or when the table holds no
 * record of it — an actor that never committed a turn, or whose record expired, is as likely a
 * typo. The refusal offers the app's type nearest to the one typed (`typeRefusal`, in the words
 * of every command that refuses a type), and says how to go on all the same (`use.force`).
 */
export async function knownActor(
  ctx: OpsContext,
  id: string,
  use: KnownActorUse,
): Promise<ActorRecord> {
  const { type, key } = parseActorId(id) ?? { type: '', key: '' };
  const { store } = await ctx.target();
  const [record, types] = await Promise.all([store.load(id), appTypes(ctx)]);
  const unknownType = types !== undefined && !types.includes(type);
  if (record && !unknownType) return record;
  const refused = unknownType
    ? typeRefusal(type, types, (near) => use.again(`${near}/${key}`))
    : undefined;
  const near = refused?.near;
  const meant = refused?.meant ?? '';
  const why = refused
    ? `${refused.why}${record ? `, though the table holds a record of ${id}: an actor of a type another version of the app defined?` : ''}`
    : `${id} has no record: it never committed a turn, or its record expired (halted, or never changed by a message), and is as likely a typo of the actor id — ${ctx.followUp`actors list ${type}`} lists the type's actors${types === undefined ? '; --app <entry> checks its type against the app' : ''}`;
  throw new BatonError(
    ErrorCode.INVALID_ARGUMENT,
    `${why}. Nothing was changed.${meant} ${use.force}`,
    {
      details: {
        actorId: id,
        hasRecord: record !== undefined,
        ...(refused ? { knownTypes: types } : {}),
        ...(near === undefined ? {} : { nearType: near }),
      },
    },
  );
}
