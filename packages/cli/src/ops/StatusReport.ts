import type { ParkedCounts, PausedFound } from './pausedLines.ts';
import type { AgeSource, QueueHealth } from './queues.ts';
import type { StuckActors } from './stuckActors.ts';

/** What `baton status` reports: whether the app is healthy, on one screen. */
export interface StatusReport {
  readonly table: string;
  /** `null` when only the table is named (no `--queue-url`): `unchecked` says so. */
  readonly inbox: {
    readonly url: string;
    readonly waiting: number;
    readonly inFlight: number;
    readonly oldestAgeMs: number | null;
  } | null;
  /** Every queue the target names (inbox, dead-letter queues, timers): depth and oldest age. */
  readonly queues: readonly QueueHealth[];
  /** Where the oldest ages come from (CloudWatch), or why they are unknown. */
  readonly oldestAges: AgeSource;
  /** The inbox queue's own dead-letter queue (a message received too often, undecodable). */
  readonly queueDeadLetters: number | null;
  /**
   * Table changes the stream function gave up on (its failure queue): live queries may have
   * missed pushes. `null` without `--stream-failure-queue-url` (a stack names it).
   */
  readonly streamFailures: number | null;
  /**
   * Timer messages the relay gave up on (the timer queue's dead-letter queue): their timers stay
   * stored, and the sweeper fires them late. `null` without `--timer-dead-letter-queue-url`.
   */
  readonly timerDeadLetters: number | null;
  /**
   * The engine's dead letters (DEAD_LETTERED), to inspect and redrive: at least this many when
   * `deadLettersComplete` is false.
   */
  readonly deadLetters: number;
  readonly oldestDeadLetterAgeMs: number | null;
  /**
   * Whether the read of the dead letters (parked messages too) took them all: false when it
   * stopped at `readBound`, and `deadLetters` and `parked` count only what it took.
   */
  readonly deadLettersComplete: boolean;
  /** The most entries each read of the table took (`--limit`). */
  readonly readBound: number;
  /** Messages held for paused actors, how many actors hold them, and how many each holds (most first). */
  readonly parked: ParkedCounts;
  /**
   * The actors an operator paused, parked messages or none, oldest pause first; the workflow
   * instances paused because their code did not replay their history (a deploy's), by id. One
   * scan finds both: `complete` is false when it stopped at its bound, or could not scan
   * (`unchecked` then says which).
   */
  readonly paused: PausedFound;
  /**
   * The actors stuck on a message failing at the head of their inbox, found by the scan that
   * finds the paused ones (so as complete as `paused`). A health problem once the longest has
   * failed for over 5 minutes.
   */
  readonly failing: StuckActors;
  readonly timersDue: number;
  readonly oldestTimerOverdueMs: number | null;
  /**
   * Actors holding committed sends no sweep retired past the sweeper's round (it runs every
   * minute), drained or not; at least `actors` when `complete` is false (the read stopped at
   * `readBound`).
   */
  readonly sweeperLag: {
    readonly actors: number;
    readonly thresholdMs: number;
    readonly complete: boolean;
  };
  readonly healthy: boolean;
  /**
   * What was not looked at, so `healthy` does not speak for it: the queues not named, those
   * named that could not be read (with why), and whether the inbox is behind when the age of
   * its oldest message is unknown.
   */
  readonly unchecked: readonly string[];
  readonly problems: readonly string[];
  /**
   * What is failing but not yet a problem, so the health line says OK with it rather than
   * alone: an actor failing its head message for less than the minutes that make it stuck.
   */
  readonly watching: readonly string[];
}
