/**
 * Replays a workflow's run against its journal and carries it on until it can go no further in
 * this turn. Commands are numbered in issue order; a journaled command resolves with its result,
 * in the order the results first came (so interleaved branches issue the same commands in the
 * same order again); the first command past the journal is issued. Steps run here, in the turn,
 * one at a time once the run is quiescent, and their results commit with the turn.
 *
 * A run whose commands differ from its journal has diverged: the replayer stops before issuing
 * anything new, and the instance pauses (NON_DETERMINISTIC) with its journal untouched. A run
 * that throws an unexpected error (a bug, a passing fault) pauses too (RETRYABLE): only a final
 * Baton error, such as a TerminalError, fails it.
 */
import { type BatonError, withheld } from '../errors.ts';
import { cancelCommands, leftByFailedRun } from './cancelCommands.ts';
import { mismatch, neverReached, reissue, unexpectedCommand } from './commandMatching.ts';
import { runReturned } from './continueAsNew.ts';
import { drain } from './drain.ts';
import { handOver } from './eventWaits.ts';
import { HistoryCursor } from './HistoryCursor.ts';
import {
  type CommandKind,
  type JournalEntry,
  type Outcome,
  recordCompletion,
  recordEntries,
  type WorkflowState,
} from './journal.ts';
import { journalError } from './journalError.ts';
import { ReplayContext } from './ReplayContext.ts';
import { ReplaySlots, settle } from './ReplaySlots.ts';
import {
  awaitingOutside,
  divergence,
  pausesRun,
  raceEntryRefused,
  runFailure,
  runThrew,
} from './replayErrors.ts';
import { LogPlace } from './replayLogger.ts';
import type { DriveResult, ReplayHost, Slot } from './replayTypes.ts';
import { SagaRunner } from './SagaRunner.ts';
import { leftToUndo, startRunner } from './sagaStart.ts';
import { type RunEnd, startRun } from './startRun.ts';
import { attemptStep, pastDeadline, ranStep, waitsForCommit } from './steps.ts';
import type { AnyWorkflowDefinition } from './workflow.ts';

/**
 * How long the steps of one turn may run before it starts no more: the turn then commits, and
 * the run goes on in the next (as after `maxStepsPerTurn` steps).
 */
export const STEP_TIME_PER_TURN_MS = 10_000;

export class Replayer {
  readonly definition: AnyWorkflowDefinition;
  state: WorkflowState;
  host: ReplayHost | undefined;
  readonly #maxSteps: number;
  #seq = 0;
  readonly #slots = new ReplaySlots();
  readonly #history: HistoryCursor;
  #started = false;
  #divergence: BatonError | undefined;
  /** The compensations the run kept, and the undos of race losers. */
  readonly sagas = new SagaRunner(() => new ReplayContext(this, 'runner'));
  #run: RunEnd | undefined;
  /** A step's function is running: its attempt is never replayed (see `logsLine`). */
  attempting = false;
  /** The run's last `ctx.setProgress` here, as JSON: a turn that did not diverge commits it. */
  progress: { readonly value: unknown } | undefined;
  readonly #logPlace = new LogPlace();
  /** This turn read a fresh `now`, `random`, `uuid` or callback secret, not committed yet (see `drive`). */
  #drawn = false;

  constructor(
    definition: AnyWorkflowDefinition,
    state: WorkflowState,
    host: ReplayHost | undefined,
    options: {
      maxStepsPerTurn?: number;
      /** The entries moved out of the record (`state.sealed`), read back from their pages. */
      sealed?: readonly JournalEntry[];
    } = {},
  ) {
    this.definition = definition;
    this.state = state;
    this.host = host;
    this.#maxSteps = options.maxStepsPerTurn ?? 10;
    this.#history = new HistoryCursor(definition.name, state, options.sealed ?? []);
  }

  /** Entry number `seq`: the record's (in its journal or pinned), else a sealed one. */
  #entry(seq: number): JournalEntry | undefined {
    return this.#history.entry(this.state, seq);
  }

  /** Moves entries out of the record into page `page` (see {@link HistoryCursor.seal}). */
  seal(count: number, page: readonly JournalEntry[]): void {
    this.#history.seal(this.state, count, page);
  }

  /**
   * Whether command `seq` is past the run's end (`state.ending.seq`): the run issues nothing
   * there, and the history's commands from there on are the saga runner's.
   */
  #ended(seq: number): boolean {
    const from = this.state.ending?.seq;
    return from !== undefined && seq >= from;
  }

  /** Whether the main run may issue new commands: not while compensations run, nor in a check. */
  get #frozen(): boolean {
    return this.host === undefined || this.state.ending !== undefined;
  }

  /** Whether a line the run logs now is new, and to be written (see {@link LogPlace}). */
  logsLine(): boolean {
    // A step's attempt runs once, never replayed: each line it logs is new.
    if (this.attempting) return true;
    const { position, next } = this.#history;
    return this.#logPlace.logs(this.state, position, next !== undefined);
  }

  /**
   * Issues command number `seq`: the journaled one (checked against `kind` and `name`), or a
   * new one past the journal. `undefined` when it must not be issued (it waits forever).
   */
  issue(kind: CommandKind, name: string, origin: 'run' | 'runner', to?: string): Slot | undefined {
    if (this.#divergence) return undefined;
    const seq = this.#seq;
    if (origin === 'run' && this.#ended(seq)) return undefined;
    const existing = this.#entry(seq);
    if (existing) {
      const wrong = mismatch(existing, seq, kind, name, to);
      if (wrong !== undefined) {
        this.diverge(wrong, existing);
        return undefined;
      }
      this.#seq++;
      return reissue(this.#slots, this.#history, existing);
    }
    // A run that ended or is being cancelled issues nothing more: also not on a replay whose
    // history goes on with the saga runner's commands.
    if (origin === 'run' && this.state.ending) return undefined;
    const expected = this.#history.next;
    if (expected) {
      this.diverge(unexpectedCommand(seq, kind, name, expected), expected);
      return undefined;
    }
    if (origin === 'run' && this.#frozen) return undefined;
    if (!this.host) return undefined;
    this.#seq++;
    const entry: JournalEntry = { seq, kind, name, state: 'pending', at: this.host.now() };
    if (origin === 'runner') entry.saga = true;
    if (to !== undefined && kind !== 'child') entry.to = to;
    this.state.journal.push(entry);
    return this.#slots.open(entry, true);
  }

  /** Tells that the run drew a fresh value (`ctx.now`, `random`, `uuid`, a callback's secret) this turn. */
  drew(): void {
    this.#drawn = true;
  }

  /** Records a result that comes now, in this turn, and resolves the slot with it. */
  complete(slot: Slot, outcome: Outcome, inline = false): void {
    if (slot.entry.state !== 'pending') return;
    recordCompletion(this.state, slot.entry, outcome, this.host?.now());
    if (inline) slot.entry.inline = true;
    this.#history.passed(slot.entry);
    settle(slot);
  }

  /**
   * The commands a promise `ctx` returned stands for (for `race`): a command's, its own; a
   * race's, those it raced.
   */
  readonly slotOf = new WeakMap<Promise<unknown>, readonly number[]>();

  /**
   * Pauses the run at a `ctx.race` entry that is no promise ctx returned (see `races` in the
   * record): the race could not cancel the commands behind it when it lost.
   */
  refuseRace(index: number): void {
    if (this.#divergence) return;
    this.#divergence = raceEntryRefused(this.definition.name, index);
  }

  /** Cancels the pending commands of `seqs` (see {@link cancelCommands}). */
  cancel(seqs: readonly number[], because: 'lost a race' | 'failed' = 'lost a race'): void {
    cancelCommands(this, this.#slots, (seq) => this.#entry(seq), seqs, because);
  }

  /** Ends what the failed run left under way, as a cancel does (see {@link leftByFailedRun}). */
  #endRun(): void {
    this.cancel(leftByFailedRun(this.#slots), 'failed');
  }

  /** Whether a race's losing call, or its compensation, is under way. */
  #undoUnderWay(): boolean {
    return this.sagas.undoing || this.#slots.undoUnderWay();
  }

  /**
   * `ctx.patched(id)`: true where the history holds this patch's marker or ends (a run reaching
   * here on the new code records the marker); false where it holds an older command instead.
   */
  patched(id: string, origin: 'run' | 'runner'): boolean {
    if (this.#divergence) return true;
    const seq = this.#seq;
    if (origin === 'run' && this.#ended(seq)) return true;
    const existing = this.#entry(seq);
    if (existing) {
      if (existing.kind !== 'patch' || existing.name !== id) return false;
      this.#seq++;
      return true;
    }
    if (!this.#history.caughtUp) return false;
    if ((origin === 'run' && this.#frozen) || !this.host) return true;
    this.#seq++;
    this.state.journal.push({ seq, kind: 'patch', name: id, state: 'done', at: this.host.now() });
    return true;
  }

  /**
   * Whether the saga runner's history holds patch `id` where it starts, recording it if the
   * history ends there: `ctx.patched`, save that a check replay (no host) of a history without
   * the patch is not taken to have it.
   */
  #marked(id: string): boolean {
    if (this.host) return this.patched(id, 'runner');
    const existing = this.#entry(this.#seq);
    if (existing?.kind !== 'patch' || existing.name !== id) return false;
    this.#seq++;
    return true;
  }

  /** Stops the replay: the code no longer matches the history. */
  diverge(what: string, entry: JournalEntry | undefined): void {
    if (this.#divergence) return;
    this.#divergence = divergence(this.definition, what, entry, this.state.version);
  }

  /**
   * Whether the run, suspended, may go on in memory in a later turn ({@link continueWith}): it
   * resolved every result its record holds and neither diverged nor ended.
   */
  get resumable(): boolean {
    return (
      this.#started &&
      this.host !== undefined &&
      !this.#divergence &&
      this.#run === undefined &&
      !this.sagas.finished &&
      this.#history.caughtUp
    );
  }

  /**
   * Carries the suspended run on over a later turn's record, which must be the one the last
   * drive left (then changed only by the handlers: results journaled, events kept, commands
   * cancelled). The results journaled since resolve in their order at the next drive. False
   * (and nothing changed) when the record is not one this run can go on with: replay it.
   */
  continueWith(state: WorkflowState, host: ReplayHost): boolean {
    // Every result of the last drive's record is resolved in memory already.
    const settled = this.state.completed;
    if (!this.resumable || !this.#history.follows(this.state, state, this.#seq)) return false;
    if (!this.#slots.carryOver(this.state, state, this.#history.sealedCount)) return false;
    this.#history.carryOver(state, settled);
    this.state = state;
    this.host = host;
    this.#drawn = false;
    return true;
  }

  /** Replays the run and carries it on; resolves once nothing more can happen in this turn. */
  async drive(): Promise<DriveResult> {
    if (!this.#started) this.#start();
    let executed = 0;
    // Wall-clock time since the turn's first step began: the turn's clock stands still.
    let firstStep: number | undefined;
    const stepTime = () => (firstStep === undefined ? 0 : performance.now() - firstStep);
    for (;;) {
      await drain();
      if (this.#divergence) return { kind: 'paused', error: this.#divergence };
      const expected = this.#history.next;
      if (expected) {
        const slot = this.#slots.get(expected.seq);
        if (slot) {
          this.#history.took();
          settle(slot);
          continue;
        }
        // The history's next result is the saga runner's (a compensation step, or a command a
        // call's compensation issued): the run is quiescent, so the runner starts here again.
        if (this.state.ending && this.#startRunner()) continue;
        this.diverge(neverReached(expected), expected);
        continue;
      }
      if (this.state.ending && this.#startRunner()) continue;
      const lost = recordEntries(this.state).find(
        (e) => e.state === 'pending' && !this.#slots.has(e.seq),
      );
      if (lost) {
        this.diverge(neverReached(lost, 'pending '), lost);
        continue;
      }
      const compensated = this.sagas.finished;
      if (compensated) return { kind: 'compensated', errors: compensated.errors };
      const run = !this.sagas.started && !this.state.ending ? this.#run : undefined;
      // A run that returned (or continues as new) ends once the race losers it left are undone.
      if (run?.ok && !this.#undoUnderWay()) {
        return runReturned(this, run, () => leftToUndo(this.sagas, this.#slots));
      }
      if (run && !run.ok && pausesRun(this.state, run.error)) {
        return { kind: 'paused', error: runThrew(this.definition, run.error) };
      }
      if (run && !run.ok) {
        const error = runFailure(this.definition, run.error, (text) =>
          this.host?.log.error('workflow run failed', {
            workflow: this.definition.name,
            error: text,
          }),
        );
        if (!leftToUndo(this.sagas, this.#slots) || !this.host) return { kind: 'failed', error };
        const ending = journalError(error.toJSON());
        this.state.ending = { status: 'failed', error: ending, seq: this.#seq };
        this.#endRun();
        this.#startRunner();
        continue;
      }
      if (handOver(this, this.#slots.values())) continue;
      const runnable = this.#slots.runnable();
      const stalled = runnable ? undefined : awaitingOutside(this, this.#run !== undefined);
      if (stalled) {
        this.#divergence = stalled;
        continue;
      }
      if (!runnable || !this.host) return { kind: 'suspended', more: false };
      // Ten steps, or steps that ran STEP_TIME_PER_TURN_MS, or a step that could end past the
      // worker's deadline, and the turn commits: its steps' results commit together.
      if (
        executed >= this.#maxSteps ||
        stepTime() >= STEP_TIME_PER_TURN_MS ||
        pastDeadline(this.host.deadline)
      ) {
        return { kind: 'suspended', more: true };
      }
      if (waitsForCommit(this.#drawn, runnable, this.#slots.values(), this.host)) {
        return { kind: 'suspended', more: true };
      }
      executed++;
      const began = performance.now();
      firstStep ??= began;
      await this.host.confirm?.();
      this.attempting = true;
      try {
        await attemptStep(this, runnable, this.host);
      } finally {
        this.attempting = false;
        ranStep(this.host.deadline, performance.now() - began);
      }
    }
  }

  /** Starts the run, once: later drives go on with it. */
  #start(): void {
    this.#started = true;
    startRun(this, new ReplayContext(this, 'run'), (run) => {
      this.#run = run;
    });
  }

  /**
   * A failure as the journal keeps it. A public workflow's journal is read by clients (its
   * status, its result): an unexpected error's text is not journaled there, but logged (see
   * `withheld`). Trusted code alone reads another's, which keeps the text.
   */
  told(error: BatonError, context: Record<string, unknown> = {}): BatonError {
    if (this.definition.public !== true) return error;
    return withheld(error, (text) =>
      this.host?.log.error('workflow command failed', { ...context, error: text }),
    );
  }

  /** Starts the saga runner (once) when the run has ended and nothing it waits for is under way. */
  #startRunner(): boolean {
    return startRunner(this, this.#slots, (id) => this.#marked(id));
  }
}
