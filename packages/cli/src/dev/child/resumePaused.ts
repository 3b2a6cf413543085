/**
 * What `baton dev` does with workflow instances left paused when its app process starts, after
 * a save reloaded it: they are replayed on the new code at once, not at their next recheck
 * (minutes away), so that a run that threw goes on as soon as the fix is saved. One the new
 * code cannot carry on stays paused, as it was.
 */
import type { BatonApp, WorkflowState } from '@baton/core';
import { parseActorId } from '@baton/core/adapter';
import { Client } from '@baton/core/client';
import { storedInstanceRef } from '@baton/core/engine';
import type { DevBackend } from './DevBackend.ts';

/** Sends `resume` to each paused instance the backend lists; the keys of those, by workflow. */
export async function resumePausedWorkflows(app: BatonApp, backend: DevBackend): Promise<string[]> {
  const byType = new Map(app.workflows.map((definition) => [definition.actor.name, definition]));
  const client = new Client({
    actors: app.actors,
    store: backend.store,
    queue: backend.queue,
  }).asSystem();
  const resumed: string[] = [];
  for (const record of await backend.listActors()) {
    const id = parseActorId(record.id);
    const definition = id && byType.get(id.type);
    if (!id || !definition || (record.state as WorkflowState).status !== 'paused') continue;
    await client.resumeWorkflow(storedInstanceRef(definition, id.key));
    resumed.push(`${definition.name}/${id.key}`);
  }
  return resumed;
}
