/**
 * A run's sagas: the compensations it kept, which the saga runner runs in reverse once the run
 * has failed or been cancelled, and the compensations of race losers, each run as soon as the
 * losing call's reply comes. Both are workflow code (or steps) in a context of the runner's,
 * whose commands are journaled like the run's own; the {@link Replayer} decides when.
 */
import type { SerializedError } from '../errors.ts';
import type { ReplayContext } from './ReplayContext.ts';
import type { RetryPolicy, StepInfo } from './WorkflowContext.ts';

/**
 * A kept compensation: a step's (outside work, run as a step of its own), or a call's or send's;
 * `seq`, the command it undoes. `attempted`: kept with no result, for a step that failed or had
 * not finished, or a call that timed out or was dead-lettered.
 */
export type Compensation = {
  readonly seq: number;
  readonly name: string;
  readonly attempted: boolean;
} & (
  | { readonly step: true; readonly fn: (info: StepInfo) => unknown }
  | { readonly step: false; readonly fn: (saga: ReplayContext) => unknown }
);

export class SagaRunner {
  /** The compensations kept so far, in the order they were kept. */
  readonly compensations: Compensation[] = [];
  /** A new context of the runner's: its commands are journaled like the run's. */
  readonly #context: () => ReplayContext;
  #status: 'idle' | 'running' | { readonly errors: SerializedError[] } = 'idle';
  /** Compensations of race losers running now, and those that failed. */
  readonly #undoing = new Set<Promise<void>>();
  readonly #undoErrors: SerializedError[] = [];
  /** The name of the kept compensation under way, once the runner has started. */
  #current: string | undefined;

  /**
   * Whether a compensation's function is being called (its synchronous part): a command of the
   * run's own `ctx` then is the compensation's, which the run's ended context would never issue.
   */
  inCompensation = false;

  /**
   * The last command that waits asked of the run's `ctx` during the compensation under way (it
   * issued none: the run has ended).
   */
  dropped: string | undefined;

  constructor(context: () => ReplayContext) {
    this.#context = context;
  }

  /** Whether the runner has started (it starts once). */
  get started(): boolean {
    return this.#status !== 'idle';
  }

  /** Once every kept compensation has run: the errors of those that failed for good. */
  get finished(): { readonly errors: readonly SerializedError[] } | undefined {
    return typeof this.#status === 'object' ? this.#status : undefined;
  }

  /** The kept compensation under way (its command's name), if any. */
  get current(): string | undefined {
    return this.#current;
  }

  /** Whether a race loser's compensation is running. */
  get undoing(): boolean {
    return this.#undoing.size > 0;
  }

  /**
   * Runs the compensation of a race's losing call whose reply came, now, beside the run (which
   * does not complete before it has). Its failure is reported with the runner's, if it runs.
   */
  undo(compensate: (saga: ReplayContext) => unknown): void {
    const saga = this.#context();
    const running: Promise<void> = Promise.resolve()
      .then(() => this.#call(() => compensate(saga)))
      .then(
        () => {},
        (error: unknown) => void this.#undoErrors.push(saga.told(error).toJSON()),
      )
      .finally(() => this.#undoing.delete(running));
    this.#undoing.add(running);
  }

  /**
   * Runs the kept compensations, once, in reverse: a step's as a step, retried per `retry`.
   * `byCommand`: all of them (those of calls that failed with no reply only with
   * `unrepliedCalls`), in the reverse order of the commands they undo (the order those were first
   * attempted or sent). Else, as Baton did before, so that a history whose saga ran so replays
   * it the same way: in the reverse order they were kept, and only those of commands that
   * succeeded.
   */
  start(
    retry: RetryPolicy | undefined,
    { byCommand, unrepliedCalls }: { byCommand: boolean; unrepliedCalls: boolean },
  ): void {
    this.#status = 'running';
    const ctx = this.#context();
    const list = byCommand
      ? this.compensations
          .filter((kept) => kept.step || !kept.attempted || unrepliedCalls)
          .sort((a, b) => b.seq - a.seq)
      : this.compensations.filter((kept) => !kept.attempted).reverse();
    const errors: SerializedError[] = [...this.#undoErrors];
    (async () => {
      for (const compensation of list) {
        this.#current = compensation.name;
        this.dropped = undefined;
        try {
          if (compensation.step) await ctx.compensate(compensation.name, compensation.fn, retry);
          else await this.#call(() => compensation.fn(ctx));
        } catch (error) {
          errors.push(ctx.told(error).toJSON());
        }
      }
    })().then(() => {
      this.#current = undefined;
      this.#status = { errors };
    });
  }

  /** `fn()`, with {@link inCompensation} set while it runs. */
  #call<T>(fn: () => T): T {
    this.inCompensation = true;
    try {
      return fn();
    } finally {
      this.inCompensation = false;
    }
  }
}
