/**
 * Versions of an actor's state: a definition with `version: n` migrates a record written by an
 * earlier version on load, one `migrate` step at a time, before its handler (or a query) sees it.
 * The turn that handles the message commits the migrated state with the new version; a message
 * that is rejected leaves the record as it was.
 */
import type { AnyActorDefinition } from './actor.ts';
import {
  type BatonError,
  invalidArgument,
  isBatonError,
  messageOf,
  RetryableError,
  unexpected,
} from './errors.ts';
import { parseActorId } from './shared/actorId.ts';

/**
 * The state version of a record written by code that did not know its actor type: a dead letter
 * kept while a deploy rolled out. It holds no state; a definition reads it as its initial state.
 */
export const NO_STATE_VERSION = 0;

/** A migration step: a state written by version `v`, as version `v + 1` has it. */
export type Migration = (state: any) => unknown;

/**
 * Throws INVALID_ARGUMENT unless `version` is an integer ≥ 1 with a `migrate` step from each
 * earlier version.
 */
export function checkStateVersions(
  name: string,
  version: unknown,
  migrate: Readonly<Record<number, Migration>> | undefined,
): void {
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) {
    throw invalidArgument(
      `actor "${name}": version must be an integer ≥ 1, got ${String(version)}`,
    );
  }
  const missing: number[] = [];
  for (let from = 1; from < version; from++) {
    if (typeof migrate?.[from] !== 'function') missing.push(from);
  }
  if (missing.length > 0) {
    throw invalidArgument(
      `actor "${name}" is at version ${version} but has no migrate step from version ` +
        `${missing.join(', ')}: give migrate: { ${missing.map((v) => `${v}: (state) => …`).join(', ')} }`,
      { details: { version, missing } },
    );
  }
}

/**
 * `state`, written by version `from` of `definition`, as the definition's own version has it.
 * A state from a newer version than the definition's is refused with a retryable error: the
 * code that reads it has not been deployed here yet.
 *
 * @example
 * const state = upgradeState(Account, record.state, record.stateVersion ?? 1, record.id);
 */
export function upgradeState(
  definition: AnyActorDefinition,
  state: unknown,
  from: number,
  actorId: string,
): unknown {
  return upgrade(definition, state, from, actorId, false);
}

/**
 * {@link upgradeState} for a message's turn. An error a `migrate` step throws, of whatever class
 * (a `TerminalError` too), is the stored state's fault, not the message's: it is retryable, and
 * names the step, so the message is retried, then kept as a dead letter to redrive once a fixed
 * migration is deployed, never rejected.
 */
export function upgradeStateForTurn(
  definition: AnyActorDefinition,
  state: unknown,
  from: number,
  actorId: string,
): unknown {
  return upgrade(definition, state, from, actorId, true);
}

/** What becomes of a message whose state this code cannot upgrade. */
const WAITS = 'the message waits (then a dead letter, to redrive)';

function upgrade(
  definition: AnyActorDefinition,
  state: unknown,
  from: number,
  actorId: string,
  /** Whether a step's error is made a retryable one naming the step. */
  retryFailedStep: boolean,
): unknown {
  if (from === definition.version) return state;
  if (from === NO_STATE_VERSION) return definition.initial(parseActorId(actorId)?.key ?? '');
  if (from > definition.version) {
    throw new RetryableError(
      `the state of ${actorId} was written by version ${from} of the "${definition.name}" ` +
        `definition, and this code has version ${definition.version}: deploy the newer code ` +
        `everywhere; ${WAITS}`,
      { details: { actorId, stateVersion: from, version: definition.version } },
    );
  }
  let current = state;
  for (let version = from; version < definition.version; version++) {
    try {
      current = definition.migrate![version]!(current);
    } catch (error) {
      if (!retryFailedStep) throw error;
      throw migrationFailed(definition, actorId, from, version, error);
    }
  }
  return current;
}

/**
 * A `migrate` step threw in a turn: the message waits for a fixed migration. What it threw by
 * surprise (no Baton error: a driver's, a bug's) is an unexpected error, whose text callers
 * outside the app are not shown (`withheld`); the log and the dead letter keep it.
 */
function migrationFailed(
  definition: AnyActorDefinition,
  actorId: string,
  from: number,
  step: number,
  cause: unknown,
): BatonError {
  const reason = messageOf(cause);
  const message =
    `the "${definition.name}" definition's migrate step from version ${step} threw on the ` +
    `state of ${actorId} (${reason}); the record stays at version ${from} and ${WAITS}: fix ` +
    'the migration, deploy, then redrive it';
  const options = { details: { actorId, stateVersion: from, migrateStep: step }, cause };
  return isBatonError(cause) ? new RetryableError(message, options) : unexpected(message, options);
}
