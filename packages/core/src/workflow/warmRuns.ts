/**
 * Suspended runs a worker keeps in memory (as Temporal's sticky cache): an instance's next turn
 * on this worker continues its run where it stopped instead of replaying the whole journal, so
 * a turn costs what it adds, not the history.
 *
 * The kept run is only a hint. Each turn that keeps one writes a fresh random token into the
 * record (`drivenBy`) and the run is continued only when the record the next turn reads carries
 * that same token: a record another worker committed, a turn that failed and rolled back, a
 * crash before the commit, a deploy (another definition) all show another token, and the run is
 * replayed from the record as a cold worker would.
 */
import type { ActorContext } from '../ActorContext.ts';
import { WARM_CACHE, type WarmEntries } from '../contextSlots.ts';
import type { WorkflowState } from './journal.ts';
import type { Replayer } from './Replayer.ts';
import type { ReplayHost } from './replayTypes.ts';
import type { AnyWorkflowDefinition } from './workflow.ts';

interface WarmRun {
  readonly replayer: Replayer;
  /** The token the turn that kept it wrote into its record. */
  readonly token: string;
}

export interface WarmRuns {
  /** The kept run of `actorId`, carried over to `state`, if `state` is the record it left. */
  resume(
    actorId: string,
    definition: AnyWorkflowDefinition,
    state: WorkflowState,
    host: ReplayHost,
  ): Replayer | undefined;
  /** Keeps a suspended run for the instance's next turn, marking `state` as its record. */
  keep(actorId: string, replayer: Replayer): void;
}

/** The warm runs of the worker running `ctx`'s turn; none outside a worker. */
export function warmRuns(ctx: ActorContext<WorkflowState>): WarmRuns | undefined {
  const cache = (ctx as unknown as Record<symbol, WarmEntries | undefined>)[WARM_CACHE];
  if (!cache) return undefined;
  return {
    resume(actorId, definition, state, host) {
      // Taken out: a concurrent turn of the instance (a zombie) never shares it.
      const kept = cache.take(actorId) as WarmRun | undefined;
      if (!kept || kept.token !== state.drivenBy) return undefined;
      if (kept.replayer.definition !== definition) return undefined;
      return kept.replayer.continueWith(state, host) ? kept.replayer : undefined;
    },
    keep(actorId, replayer) {
      if (!replayer.resumable) {
        delete replayer.state.drivenBy;
        return;
      }
      const token = newToken();
      replayer.state.drivenBy = token;
      cache.put(actorId, { replayer, token } satisfies WarmRun);
    },
  };
}

/** Unique in this process and across processes: a random prefix and a counter. */
const prefix = Array.from(globalThis.crypto.getRandomValues(new Uint8Array(8)), (b) =>
  b.toString(16).padStart(2, '0'),
).join('');
let counter = 0;
function newToken(): string {
  counter++;
  return `${prefix}.${counter.toString(36)}`;
}
