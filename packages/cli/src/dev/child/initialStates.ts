/**
 * What `baton dev` checks of an app's actors as it loads them, beside what `defineApp` refuses:
 * an `initial()` whose state its own `state` schema refuses, which a turn would find only at a
 * new actor's first message (and keep that message as a dead letter). Told, not refused: the
 * app runs on. Not on the worker's path: only the dev command runs it.
 */
import type { AnyActorDefinition } from '@baton/core';
import { asJson, schemaIssues } from '@baton/core/shared';

/**
 * One line for each actor whose `initial()` returns state its `state` schema refuses (or that
 * throws, or is not JSON): an `initial()` taking no key, which alone can be called without one
 * (what one taking the key returns may depend on it). An actor whose turns do not check their
 * state (`validateState: false`) is left out, as the turn leaves it.
 *
 * @example
 * initialStateProblems([actor({ name: 'tally', state: z.object({ n: z.number() }), initial: () => ({ n: '0' }), handlers })]);
 * // ['initial() of tally returns state its schema refuses (state.n: …): …']
 */
export function initialStateProblems(actors: readonly AnyActorDefinition[]): string[] {
  return actors.flatMap((definition) => {
    if (definition.validateState === false || definition.initial.length > 0) return [];
    const problem = initialProblem(definition);
    return problem === undefined ? [] : [problem];
  });
}

function initialProblem(definition: AnyActorDefinition): string | undefined {
  const { name } = definition;
  let state: unknown;
  try {
    state = (definition.initial as () => unknown)();
  } catch (error) {
    return `initial() of ${name} throws (${textOf(error)}): a new ${name} actor cannot start; fix initial()`;
  }
  try {
    // As a turn checks it: as JSON, as it is stored.
    state = asJson(state);
  } catch (error) {
    return `initial() of ${name} returns state that is not JSON (${textOf(error)}): a message that leaves a new ${name} actor so is kept as a dead letter; make initial() return plain JSON values`;
  }
  const checked = definition.state.safeParse(state);
  if (checked.success) return undefined;
  const { summary } = schemaIssues('state', checked.error.issues);
  return `initial() of ${name} returns state its schema refuses (${summary}): a message that leaves a new ${name} actor so is kept as a dead letter; make initial() return state the schema takes (or fix the schema)`;
}

const textOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
