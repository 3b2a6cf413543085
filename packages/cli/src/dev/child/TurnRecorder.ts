import type { Commit } from '@baton/core/adapter';
import type { EngineOptions, TurnStart, TurnStats } from '@baton/core/engine';
import { type TurnLog, type TurnMessage, TurnOutcomes } from './TurnLog.ts';

/** A turn in progress: its messages, and what its commits said of them. */
interface Running {
  readonly start: TurnStart;
  readonly outcomes: TurnOutcomes;
}

/**
 * Records each actor turn in the turn log, from the engine's hooks: `onTurnStart` names the
 * messages, each `onCommit` says which were rejected or dead-lettered, and `onTurn` gives the
 * duration and how many of the last messages are left to retry. A queue hands an actor's
 * messages to one receiver at a time, so turns in progress are told apart by actor id.
 */
export class TurnRecorder {
  readonly #log: TurnLog;
  readonly #afterCommit: (commit: Commit, names: readonly string[]) => void;
  readonly #running = new Map<string, Running>();

  /** `afterCommit` is told of each commit with the message names of its turn. */
  constructor(log: TurnLog, afterCommit: (commit: Commit, names: readonly string[]) => void) {
    this.#log = log;
    this.#afterCommit = afterCommit;
  }

  /** The engine options that feed this recorder. */
  readonly hooks: Required<Pick<EngineOptions, 'onTurnStart' | 'onCommit' | 'onTurn'>> = {
    onTurnStart: (start) => {
      this.#running.set(start.actorId, { start, outcomes: new TurnOutcomes() });
    },
    onCommit: (commit) => {
      const turn = this.#running.get(commit.record.id);
      turn?.outcomes.add(commit);
      this.#afterCommit(commit, turn?.start.messages.map((m) => m?.name ?? '?') ?? []);
    },
    onTurn: (stats) => this.#end(stats),
  };

  #end(stats: TurnStats): void {
    const turn = this.#running.get(stats.actorId);
    this.#running.delete(stats.actorId);
    if (!turn) return;
    const { messages } = turn.start;
    // The worker leaves the last `retried` messages of the batch for the queue to deliver again.
    const firstRetried = messages.length - stats.retried;
    this.#log.add({
      at: Date.now(),
      actorId: stats.actorId,
      durationMs: Math.round(stats.durationMs * 10) / 10,
      messages: messages.map((message, i): TurnMessage => {
        const id = message?.id ?? '?';
        const failure = turn.outcomes.of(id);
        return {
          id,
          name: message?.name ?? '?',
          from: message?.from ?? '?',
          outcome: i >= firstRetried ? 'retry' : (failure?.outcome ?? 'ok'),
          ...(failure ? { error: failure.error } : {}),
        };
      }),
    });
  }
}
