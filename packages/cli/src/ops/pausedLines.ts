/**
 * `baton status`'s lines of what holds actors: messages parked at paused actors, the actors an
 * operator paused, and the workflow instances a deploy left paused, each with the commands to
 * look at and resume them.
 */
import type { PausedWorkflow } from '@baton/aws';
import type { FollowUp } from './target.ts';

/** Messages held for paused actors, how many actors hold them, and how many each holds (most first). */
export interface ParkedCounts {
  readonly messages: number;
  readonly actors: number;
  readonly byActor: Readonly<Record<string, number>>;
}

/**
 * The actors an operator paused, parked messages or none, oldest pause first; the workflow
 * instances paused because their code did not replay their history (a deploy's), by id. One
 * scan finds both: `complete` is false when it stopped at its bound, or could not scan.
 */
export interface PausedFound {
  /** Who paused each, and when (an ISO time, as every time `--json` gives). */
  readonly actors: ReadonlyArray<{ readonly id: string; readonly at: string; readonly by: string }>;
  readonly workflows: readonly PausedWorkflow[];
  readonly complete: boolean;
}

/** The commands that list the paused instances, one per workflow, each to run as it is. */
export function listPaused(stuck: readonly PausedWorkflow[], follow: FollowUp): string[] {
  const names = [...new Set(stuck.map((w) => w.workflow))].sort();
  return names.map((name) => follow`workflows list ${name} --status paused`);
}

/** How many parked messages each actor holds, most first. */
export function parkedByActor(actorIds: readonly string[]): Omit<ParkedCounts, 'messages'> {
  const counts = new Map<string, number>();
  for (const id of actorIds) counts.set(id, (counts.get(id) ?? 0) + 1);
  const sorted = [...counts].sort(([a, m], [b, n]) => n - m || (a < b ? -1 : 1));
  return { actors: counts.size, byActor: Object.fromEntries(sorted) };
}

/** The actors `status` names in its parked line, most messages first. */
const PARKED_NAMED = 5;

/**
 * How many messages paused actors hold, naming the actors (`dead-letters list` leaves parked
 * messages out, so this is where the operator learns which actors to look at and resume).
 */
export function parkedLine(parked: ParkedCounts, follow: FollowUp): string {
  const line = `${parked.messages} message(s) of ${parked.actors} paused actor(s)`;
  const held = Object.entries(parked.byActor);
  if (held.length === 0) return line;
  const named = held.slice(0, PARKED_NAMED).map(([id, n]) => `${id} (${n})`);
  if (held.length > PARKED_NAMED) named.push(`and ${held.length - PARKED_NAMED} more`);
  return `${line}: ${named.join(', ')} — ${actorCommands(
    held.map(([id]) => id),
    follow,
    'applies them',
  )}`;
}

/**
 * The commands to look at and resume the actors a line names (`ids`, at least one): the one,
 * or the first of several, by its id, so that pasted they run (a `<type/key>` would not).
 */
function actorCommands(ids: readonly string[], follow: FollowUp, resumes: string): string {
  const first = ids[0] ?? '';
  const [get, resume] = [follow`actors get ${first}`, follow`actors resume ${first}`];
  return ids.length === 1
    ? `${get}; ${resume} ${resumes}`
    : `${get} shows the first; ${resume} ${resumes}, and likewise for the others`;
}

/**
 * The actors an operator holds paused, those with no message parked too (the `parked` line
 * names only those that hold some), and the commands to look at and resume one.
 */
export function pausedLine(
  paused: PausedFound,
  parked: ParkedCounts,
  follow: FollowUp,
  readBound: number,
): string {
  const { actors } = paused;
  const line = `${actors.length} actor(s)${scanNote(paused, readBound)}`;
  if (actors.length === 0) return line;
  const named = actors.slice(0, PARKED_NAMED).map(({ id, by }) => {
    const held = parked.byActor[id];
    return `${id} (by ${by}, ${held === undefined ? 'nothing parked' : `${held} parked`})`;
  });
  if (actors.length > PARKED_NAMED) named.push(`and ${actors.length - PARKED_NAMED} more`);
  const ids = actors.map(({ id }) => id);
  return `${line}: ${named.join(', ')} — ${actorCommands(ids, follow, 'resumes it')}`;
}

/**
 * The workflow instances paused because their code does not replay their history or their run
 * threw (the first five, by id, with the version that could not go on), and the commands to list
 * them, see why and resume one once code that replays it runs.
 */
export function pausedWorkflowsLine(
  paused: PausedFound,
  follow: FollowUp,
  readBound: number,
): string {
  const { workflows } = paused;
  const line = `${workflows.length} instance(s)${scanNote(paused, readBound)}`;
  if (workflows.length === 0) return line;
  const named = workflows
    .slice(0, PARKED_NAMED)
    .map(
      ({ workflow, instance, version, threw }) =>
        `${workflow}/${instance} (version ${version}${threw ? ', its run threw' : ''})`,
    );
  if (workflows.length > PARKED_NAMED) named.push(`and ${workflows.length - PARKED_NAMED} more`);
  const [first] = workflows;
  if (workflows.length === 1 && first) {
    const { workflow, instance } = first;
    return `${line}: ${named.join(', ')} — ${follow`workflows show ${workflow} ${instance}`} says why; ${follow`workflows resume ${workflow} ${instance}`} once code that replays it runs`;
  }
  const names = new Set(workflows.map((w) => w.workflow));
  const [only] = names;
  const [show, resume] =
    names.size === 1 && only !== undefined
      ? [follow`workflows show ${only} <id>`, follow`workflows resume ${only} <id>`]
      : [follow`workflows show <workflow> <id>`, follow`workflows resume <workflow> <id>`];
  const lists = listPaused(workflows, follow);
  return `${line}: ${named.join(', ')} — ${lists.join(' and ')} ${lists.length > 1 ? 'list' : 'lists'} them, ${show} says why; ${resume} once code that replays it runs`;
}

/**
 * What a paused line says after its count when the scan stopped at its bound (`readBound`
 * items): it counts only what the items read hold.
 */
function scanNote(paused: PausedFound, readBound: number): string {
  return paused.complete
    ? ''
    : ` in the first ${readBound.toLocaleString('en-US')} items of the table (see "not checked" below)`;
}
