import { decodeEnvelope, type ReceivedMessage } from '@baton/core/adapter';
import { type Engine, type ProcessResult, Worker } from '@baton/core/engine';
import { type TurnLog, type TurnMessage, TurnOutcomes } from './TurnLog.ts';

/**
 * The engine's worker, timing each actor's turn and recording what became of its messages in
 * the turn log. The store wrapper hands it each commit (`onCommit`) while a turn of that actor
 * runs; a worker runs one turn per actor at a time, so commits map to turns by actor id.
 */
export class RecordingWorker extends Worker {
  readonly #log: TurnLog;
  readonly #running = new Map<string, { outcomes: TurnOutcomes; names: string[] }>();

  constructor(engine: Engine, log: TurnLog) {
    super(engine);
    this.#log = log;
  }

  /** The message names of the turn of `actorId` in progress, if any. */
  namesInTurn(actorId: string): readonly string[] {
    return this.#running.get(actorId)?.names ?? [];
  }

  onCommit(actorId: string, add: (outcomes: TurnOutcomes) => void): void {
    const turn = this.#running.get(actorId);
    if (turn) add(turn.outcomes);
  }

  override async process(received: readonly ReceivedMessage[]): Promise<ProcessResult> {
    const groups = new Map<string, ReceivedMessage[]>();
    for (const message of received) {
      groups.set(message.group, [...(groups.get(message.group) ?? []), message]);
    }
    const results = await Promise.all(
      [...groups].map(([actorId, messages]) => this.#turn(actorId, messages)),
    );
    return {
      done: results.flatMap((r) => r.done),
      failed: results.flatMap((r) => r.failed),
      retryAfterMs: new Map(results.flatMap((r) => [...r.retryAfterMs])),
    };
  }

  async #turn(actorId: string, messages: ReceivedMessage[]): Promise<ProcessResult> {
    const envelopes = messages.map((m) => decodeEnvelope(m.body));
    const outcomes = new TurnOutcomes();
    this.#running.set(actorId, { outcomes, names: envelopes.map((e) => e?.name ?? '?') });
    const started = performance.now();
    try {
      const result = await super.process(messages);
      const done = new Set(result.done);
      this.#log.add({
        at: Date.now(),
        actorId,
        durationMs: Math.round((performance.now() - started) * 10) / 10,
        messages: messages.map((message, i): TurnMessage => {
          const envelope = envelopes[i];
          const id = envelope?.id ?? message.dedupeId;
          const failure = outcomes.of(id);
          return {
            id,
            name: envelope?.name ?? '?',
            from: envelope?.from ?? '?',
            outcome: !done.has(message) ? 'retry' : (failure?.outcome ?? 'ok'),
            ...(failure ? { error: failure.error } : {}),
          };
        }),
      });
      return result;
    } finally {
      this.#running.delete(actorId);
    }
  }
}
