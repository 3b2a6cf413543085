import type { BatonApp, WorkflowState } from '@baton/core';
import { readHistoryWindow } from '@baton/core/engine';
import { clip } from '@baton/core/shared';
import type { QueryEngine } from '@baton/server';
import { inspectFailing } from '../../inspectedFailing.ts';
import {
  INSPECTOR_QUERY,
  type InspectedWorkflow,
  type InspectorSnapshot,
  MAX_ACTORS,
  MAX_PAUSED,
} from '../inspector/InspectorSnapshot.ts';
import type { DevBackend } from './DevBackend.ts';
import type { TurnLog } from './TurnLog.ts';

/** What a snapshot is made of. */
export interface SnapshotSources {
  readonly app: BatonApp;
  readonly backend: DevBackend;
  readonly turns: TurnLog;
  readonly startedAt: number;
  /** The WebSocket host, once it runs. */
  readonly server: () => { engine: QueryEngine; connections(): unknown[] } | undefined;
}

/** The app as the inspector shows it, read afresh. */
export async function inspectorSnapshot(sources: SnapshotSources): Promise<InspectorSnapshot> {
  const { app, backend, turns } = sources;
  const [records, depths, kept] = await Promise.all([
    backend.listActors(),
    backend.depths(),
    backend.store.listDeadLetters(),
  ]);
  records.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  // A message parked for a paused actor is kept as a dead letter is, but is none: it waits.
  const letters = kept.filter((letter) => letter.parked === undefined);
  const parked = new Map<string, number>();
  for (const { actorId, parked: place } of kept) {
    if (place !== undefined) parked.set(actorId, (parked.get(actorId) ?? 0) + 1);
  }
  const pausedActors = records
    .flatMap(({ id, paused: pause }) =>
      pause ? [{ id, at: pause.at, by: pause.by, parked: parked.get(id) ?? 0 }] : [],
    )
    .sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const server = sources.server();
  return {
    backend: backend.label,
    pid: process.pid,
    startedAt: sources.startedAt,
    actorTypes: app.actors.map((definition) => ({
      name: definition.name,
      messages: Object.keys(definition.handlers as object),
      instances: records.filter((r) => r.id.startsWith(`${definition.name}/`)).length,
    })),
    actors: records.slice(0, MAX_ACTORS).map(({ id, ver, inboxOffset, state, paused, failing }) => {
      const failingMessage = inspectFailing(failing);
      return {
        id,
        ver,
        inboxOffset,
        state,
        ...(paused ? { paused: { at: paused.at, by: paused.by } } : {}),
        ...(failingMessage ? { failing: failingMessage } : {}),
      };
    }),
    actorCount: records.length,
    actorsListed: backend.actorsListed,
    pausedActors: pausedActors.slice(0, MAX_PAUSED),
    pausedCount: pausedActors.length,
    depths: { ...depths, deadLetters: letters.length },
    turns: turns.recent().map((turn) => ({ ...turn, messages: [...turn.messages] })),
    turnCount: turns.count,
    deadLetters: letters.map((letter) => ({
      actorId: letter.actorId,
      messageId: letter.messageId,
      name: letter.envelope.name,
      payload: letter.envelope.payload ?? null,
      error: letter.error.message,
      attempts: letter.attempts,
      at: letter.at,
      redrivable: letter.redrivable,
    })),
    queries: (server?.engine.instances() ?? []).map(({ query, args, subscribers }) => ({
      query,
      // The inspector's own query: its argument is the token.
      args: query === INSPECTOR_QUERY ? {} : (args ?? null),
      subscribers,
    })),
    connections: server?.connections().length ?? 0,
    workflows: await workflowsOf(app, backend, records),
  };
}

/** Steps of each instance the inspector shows: the newest, from a long history's pages too. */
const STEPS_SHOWN = 200;

/** The app's workflow instances among `records` (actors of type `wf-<name>`), newest first. */
async function workflowsOf(
  app: BatonApp,
  backend: DevBackend,
  records: readonly { id: string; state: unknown }[],
): Promise<InspectedWorkflow[]> {
  const names = new Set(app.workflows.map((w) => w.name));
  const found: { id: string; workflow: string; key: string; s: WorkflowState }[] = [];
  for (const { id, state } of records) {
    const slash = id.indexOf('/');
    const workflow = id.slice(3, slash);
    if (!id.startsWith('wf-') || slash < 0 || !names.has(workflow)) continue;
    found.push({ id, workflow, key: id.slice(slash + 1), s: state as WorkflowState });
  }
  found.sort((a, b) => (b.s.startedAt ?? 0) - (a.s.startedAt ?? 0));
  // Only the instances shown read their steps (a long history's from its pages).
  return Promise.all(
    found.slice(0, MAX_ACTORS).map(async ({ id, workflow, key, s }) => {
      const steps = s.sealed
        ? (await readHistoryWindow(backend.store, id, s, { limit: STEPS_SHOWN })).entries
        : [...(s.pinned ?? []), ...s.journal].slice(-STEPS_SHOWN);
      return {
        workflow,
        id: key,
        status: s.status,
        ...(s.startedAt === undefined ? {} : { startedAt: s.startedAt }),
        ...(s.endedAt === undefined ? {} : { endedAt: s.endedAt }),
        ...(s.error ? { error: `${s.error.code}: ${s.error.message}` } : {}),
        ...(s.progress === undefined ? {} : { progress: clip(JSON.stringify(s.progress)) }),
        ...(s.continued === undefined ? {} : { continued: s.continued }),
        steps: steps.map((e) => ({
          seq: e.seq,
          kind: e.kind,
          name: e.name,
          state: e.state,
          at: e.at,
          ...(e.attempts === undefined ? {} : { attempts: e.attempts }),
          ...(e.endedAt === undefined ? {} : { endedAt: e.endedAt }),
          ...(e.error ? { error: `${e.error.code}: ${e.error.message}` } : {}),
        })),
      };
    }),
  );
}
