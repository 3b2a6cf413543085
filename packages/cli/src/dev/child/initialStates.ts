/**
 * What `baton dev` checks of an app's actors as it loads them, beside what `defineApp` refuses:
 * an `initial()` whose state its own `state` schema refuses, which a turn would find only at a
 * new actor's first message (and keep that message as a dead letter). Told, not refused: the
 * app runs on. Not on the worker's path: only the dev command runs it.
 */
import type { AnyActorDefinition } from '@baton/core';
import { asStrictJson, schemaIssues } from '@baton/core/shared';

/** Two keys no app names an actor by: an `initial()` that gives both the same state ignores its key. */
const PROBE_KEYS = ['baton-dev-check-1', 'baton-dev-check-2'] as const;

/**
 * One line for each actor whose `initial()` returns state its `state` schema refuses (or that
 * throws, or is not JSON, a Map or a Set in it included, as a turn refuses it): an `initial()`
 * that names no parameter and gives the same state for two keys, so that what is checked does
 * not depend on the key. An actor whose turns do not check their state (`validateState: false`)
 * is left out, as the turn leaves it.
 *
 * @example
 * initialStateProblems([actor({ name: 'tally', state: z.object({ n: z.number() }), initial: () => ({ n: '0' }), handlers })]);
 * // ['initial() of tally returns state its schema refuses (state.n: …): …']
 */
export function initialStateProblems(actors: readonly AnyActorDefinition[]): string[] {
  return actors.flatMap((definition) => {
    // One that names a parameter takes the key: what it returns may depend on it.
    if (definition.validateState === false || definition.initial.length > 0) return [];
    const problem = initialProblem(definition);
    return problem === undefined ? [] : [problem];
  });
}

function initialProblem(definition: AnyActorDefinition): string | undefined {
  const { name } = definition;
  const thrown: string[] = [];
  const states = PROBE_KEYS.map((key) => {
    try {
      return definition.initial(key);
    } catch (error) {
      thrown.push(textOf(error));
      return undefined;
    }
  });
  // It may read its key all the same (a default value, `arguments`): told only when it throws
  // for both keys alike, and checked only when it gives both the same state.
  if (thrown.length > 0) {
    return thrown.length === 2 && thrown[0] === thrown[1]
      ? `initial() of ${name} throws (${thrown[0]}): a new ${name} actor cannot start; fix initial()`
      : undefined;
  }
  let state: unknown;
  try {
    // As a turn checks it: as JSON, refusing a Map or a Set, which JSON keeps as `{}`.
    const [first, second] = states.map(asStrictJson);
    if (JSON.stringify(first) !== JSON.stringify(second)) return undefined;
    state = first;
  } catch (error) {
    return `initial() of ${name} returns state that is not JSON (${textOf(error)}): a message that leaves a new ${name} actor so is kept as a dead letter; make initial() return plain JSON values (an array or a record for a Map or a Set)`;
  }
  let summary: string;
  try {
    const checked = definition.state.safeParse(state);
    if (checked.success) return undefined;
    summary = schemaIssues('state', checked.error.issues).summary;
  } catch (error) {
    // A schema a synchronous parse cannot run (an async refinement): turns cannot either.
    return `the state schema of ${name} cannot check initial()'s state (${textOf(error)}): turns check state synchronously; make the schema synchronous`;
  }
  return `initial() of ${name} returns state its schema refuses (${summary}): a message that leaves a new ${name} actor so is kept as a dead letter; make initial() return state the schema takes (or fix the schema)`;
}

const textOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
