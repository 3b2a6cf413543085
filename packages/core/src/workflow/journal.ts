/**
 * A workflow instance's record: its status, its input, and the journal of the commands its run
 * issued (one entry per `ctx` command, by issue number `seq`), with each result. It is the state
 * of the instance's actor, so every change commits with the turn that made it.
 */

import type { Caller } from '../caller.ts';
import { ErrorCode, type SerializedError } from '../errors.ts';
import type { JsonOf } from '../jsonOf.ts';
import { journalError } from './journalError.ts';

/**
 * Where an instance stands. `new`: never started. `running`: working (a step, a call, a child).
 * `waiting`: suspended on time or on the outside (a sleep, an event, a callback). `paused`: its
 * code no longer replays its history (NON_DETERMINISTIC), or its run threw an unexpected error
 * (RETRYABLE). The rest are final.
 */
export type WorkflowStatus =
  | 'new'
  | 'running'
  | 'waiting'
  | 'paused'
  | 'completed'
  | 'failed'
  | 'cancelled'
  | 'terminated';

/** The statuses an instance never leaves (until its retention ends and it halts). */
export const FINAL_STATUSES: ReadonlySet<WorkflowStatus> = new Set([
  'completed',
  'failed',
  'cancelled',
  'terminated',
]);

/** What a `ctx` command is. `now`, `random`, `uuid`, `send` and `patch` complete as issued. */
export type CommandKind =
  | 'step'
  | 'call'
  | 'send'
  | 'sleep'
  | 'event'
  | 'callback'
  | 'child'
  | 'compensate'
  | 'now'
  | 'random'
  | 'uuid'
  | 'patch';

/** One command of a run, as journaled. */
export interface JournalEntry {
  /** Its issue number: the n-th command the run issued. */
  readonly seq: number;
  readonly kind: CommandKind;
  /** The step, event or callback name; the target type and message of a call or send. */
  readonly name: string;
  /** `cancelled`: a loser of `ctx.race`, or a wait a cancel ended; it never resolves. */
  state: 'pending' | 'done' | 'failed' | 'cancelled';
  value?: unknown;
  error?: SerializedError;
  /**
   * The completion number: replay resolves entries in this order, so a run whose branches
   * interleave (`Promise.all`, `ctx.parallel`) issues its commands in the same order again.
   */
  order?: number;
  /** Completed at issue (an event already buffered, a call refused at once). */
  inline?: true;
  /** A step's attempts so far. */
  attempts?: number;
  /** A step waiting for its next attempt (backoff): when it is due. */
  retryAt?: number;
  /** A step waiting for its next attempt: why the last one failed (clipped), for operators. */
  lastError?: string;
  /**
   * A step's last attempt: how long its function ran, wall-clock ms, for operators (`at` and
   * `endedAt` are the turn's time, alike for every step of a turn). No replay reads it.
   */
  ranMs?: number;
  /** A sleep's end, or a wait's timeout. */
  until?: number;
  /** A callback's secret: the token carries it. */
  secret?: string;
  /** A child's instance (its actor id): told to end when this instance is cancelled or ends. */
  child?: string;
  /**
   * The actor a call or send went to (its id): a replay that issues the command to another
   * actor has diverged. Absent from entries an earlier Baton journaled.
   */
  to?: string;
  /**
   * Issued by a compensation (the saga runner's, or a race loser's undo), not by the run: a
   * cancel or the run's failure leaves it to finish, as the saga waits for it.
   */
  saga?: true;
  /**
   * A call that failed yet may be applied ({@link callMayBeApplied}: ASK_TIMEOUT, DEAD_LETTERED,
   * or applied with a reply too large to journal), as this Baton journals it: a race's loser so
   * failed is undone (an earlier Baton left it alone, and its histories replay so).
   */
  unreplied?: true;
  /** Issued at, epoch ms (the turn's time). */
  at: number;
  endedAt?: number;
}

/** The rules of runs started now (see {@link WorkflowState.rules}). */
export const RULES = 2;

/** Whether the run of `state` replays by rules `version` or later. */
export const rulesAtLeast = (state: WorkflowState, version: number): boolean =>
  (state.rules ?? 1) >= version;

/** The record of one instance. */
export interface WorkflowState {
  status: WorkflowStatus;
  /** Unique per start of this id: step keys carry it, so a new life never repeats a key. */
  runId?: string;
  /**
   * The run of the parent whose `ctx.child` started this instance: a later run of that parent's
   * id (started anew once its retention ended) does not take this instance as its child.
   */
  parentRun?: string;
  /**
   * How its steps' keys are made: `name`, by the step's name and how many of that name came
   * before it (every run started now); absent, by the step's command number (runs started by
   * earlier versions, which keep the keys their attempts so far had).
   */
  stepKeys?: 'name';
  /**
   * What `ctx.race` takes: `commands`, only the promises ctx's commands (or a race) returned,
   * since it cancels its losers by their commands, and pauses the run at an entry it cannot
   * trace (every run started now); absent, any promise, a loser that is not a command's left
   * pending (runs started by earlier versions, which replay as they ran).
   */
  races?: 'commands';
  /**
   * The rules its run replays by, {@link RULES} for runs started now; absent (1) for runs
   * started by earlier versions, which replay as they ran. Rules 2: `ctx.map` and
   * `ctx.parallel` start no item after a failure; a compensation that issues a command on the
   * run's `ctx` fails; a run that returns after catching `ctx.continueAsNew` pauses, as does
   * one racing nothing; `ctx.setProgress` refuses a Map or a Set.
   */
  rules?: number;
  /**
   * What an unexpected error its run throws does (see `pausesRun`): `pauses`, the instance
   * waits for fixed code (every run started now); absent, it fails the run as any error does
   * (runs started by earlier versions, whose code may throw a plain Error to fail on purpose).
   */
  thrown?: 'pauses';
  input?: unknown;
  caller?: Caller;
  /** The `traceparent` of the span of the turn that started it: its spans' trace. */
  trace?: string;
  startedAt?: number;
  endedAt?: number;
  journal: JournalEntry[];
  /**
   * The oldest entries, all final, moved out of the record into pages of their own (see
   * `history.ts`): `journal` holds the entries from number `entries` on. When a finished
   * instance's retention ends its pages are forgotten, a few a turn: `pages` counts those left.
   * `lows[b]`: the least command number in pages `b·PAGE_BLOCK` to `(b+1)·PAGE_BLOCK − 1`, so a
   * window of early commands skips the later pages unread (see `historyWindow`); absent on runs
   * whose first pages an earlier Baton wrote (it keeps no such index).
   */
  sealed?: { entries: number; pages: number; lows?: number[] };
  /**
   * Entries before number `sealed.entries` that were still pending when the entries around
   * them moved into pages: the record keeps them, in number order, while messages change them;
   * once final, they move out with a later page.
   */
  pinned?: JournalEntry[];
  /** Completions so far: the next entry's `order`. */
  completed: number;
  /**
   * Where the run's last logged line was: after resolving `at` completions, the `lines`-th line
   * logged there. A replay writes only lines past it (see `Replayer.logsLine`). Absent until the
   * run logs, and on records an earlier Baton wrote.
   */
  logged?: { at: number; lines: number };
  /** Events that arrived before a wait for them, oldest first: each is consumed once. */
  signals: { name: string; payload: unknown; at: number }[];
  output?: unknown;
  error?: SerializedError;
  /**
   * What the run last gave `ctx.setProgress` (JSON), for its readers: kept once it ends. A
   * replay sets it again as it runs, so only the turn's last value is committed.
   */
  progress?: unknown;
  /**
   * When the run times out (the workflow's `timeoutMs` after its start), while its timer is
   * armed: absent for a workflow without one, and once the run ended or timed out.
   */
  deadlineAt?: number;
  /** Set while compensations run: how the instance ends once they are done. */
  ending?: {
    status: 'failed' | 'cancelled';
    error: SerializedError;
    /**
     * The number of the first command the run had not issued when it failed or was cancelled:
     * commands from there on are the saga runner's, never the run's (which may go on after a
     * call under way replies, issuing nothing). Absent on records of earlier versions.
     */
    seq?: number;
  };
  /**
   * Once an instance that ran compensations ended: the number of the saga runner's first
   * command (`ending.seq`), so a check replay (`replayWorkflow`) replays them as the saga's.
   */
  sagaFrom?: number;
  /** Why the instance is paused, and the code version that could not go on. */
  paused?: { error: SerializedError; version: string };
  /** While paused: how many times it was replayed again on a timer since (see `advance.ts`). */
  rechecks?: number;
  /** The code version that last replayed the run (a turn of code that could not leaves it). */
  version?: string;
  /**
   * The token of the turn that left this run suspended in its worker's memory: that worker
   * continues it only while the record still carries this token (see `warmRuns.ts`).
   */
  drivenBy?: string;
  /** Parent workflows awaiting this one (`ctx.child`): told its outcome when it ends. */
  notify: { actor: string; seq: number; run?: string }[];
  /**
   * Starts of this instance that its parents ended before the starts came: a start kept as a
   * dead letter and redriven after its parent's cancel, the one way past the channel's order.
   * Such a start ends the instance as its parent said, never running it.
   */
  endedStarts?: EndedStart[];
  /** Runs that ended in `ctx.continueAsNew` so far (absent: none). */
  continued?: number;
  /**
   * The instance's first run, once it continued as new: a start is taken or refused against its
   * input and its id (the start's message), whatever run is current.
   */
  firstRun?: { runId: string; input: unknown };
  /** Pages of history of runs that continued as new, to forget a few a turn (see `dropHistory`). */
  earlierPages?: { run: string; pages: number }[];
}

/** See {@link WorkflowState.endedStarts}: the parent's command, and how it ended the child. */
export interface EndedStart {
  readonly actor: string;
  readonly seq: number;
  readonly run?: string;
  readonly status: 'cancelled' | 'terminated';
  readonly error: SerializedError;
  /** Kept at, epoch ms (the turn's time); absent on ends an earlier Baton kept. */
  readonly at?: number;
}

/** A command's result: a value, or the error the run sees. */
export type Outcome =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: SerializedError };

/**
 * The codes of a call's failure that leave its message to be applied yet, or later: no reply
 * came in time (ASK_TIMEOUT: the message may still wait in the actor's inbox), or the actor kept
 * it as a dead letter (DEAD_LETTERED), which an operator may redrive.
 */
const UNREPLIED_CODES: ReadonlySet<string> = new Set([
  ErrorCode.ASK_TIMEOUT,
  ErrorCode.DEAD_LETTERED,
]);

/**
 * Whether a call that failed may have been applied all the same, or may be later: its failure
 * has one of {@link UNREPLIED_CODES}, or the actor applied it and its reply was too large to
 * journal (`replyTooLarge`). Its compensation is then kept, with no reply.
 */
export function callMayBeApplied(error: Pick<SerializedError, 'code' | 'details'>): boolean {
  if (UNREPLIED_CODES.has(error.code)) return true;
  return error.code === ErrorCode.MESSAGE_TOO_LARGE && error.details?.applied === true;
}

/**
 * Journals a pending command's result: it gets the next completion number, the order replay
 * resolves it in. `now` is the turn's time.
 */
export function recordCompletion(
  state: WorkflowState,
  entry: JournalEntry,
  outcome: Outcome,
  now: number | undefined,
): void {
  entry.state = outcome.ok ? 'done' : 'failed';
  if (outcome.ok) {
    if (outcome.value !== undefined) entry.value = outcome.value;
  } else {
    entry.error = journalError(outcome.error);
    if (entry.kind === 'call' && callMayBeApplied(outcome.error)) entry.unreplied = true;
  }
  entry.order = state.completed++;
  if (now !== undefined) entry.endedAt = now;
  delete entry.retryAt;
  delete entry.lastError;
}

/** Entries moved out of the record into pages (see `history.ts`). */
export function sealedCount(state: WorkflowState): number {
  return state.sealed?.entries ?? 0;
}

/**
 * Journal entry number `seq` if the record holds it (in its journal, or pinned); an entry moved
 * out into a page (final, so no message changes it) is `undefined` here.
 */
export function entryAt(state: WorkflowState, seq: unknown): JournalEntry | undefined {
  if (typeof seq !== 'number') return undefined;
  const index = seq - sealedCount(state);
  if (index >= 0) return state.journal[index];
  return state.pinned?.find((entry) => entry.seq === seq);
}

/** The entries the record holds, in number order: the pinned ones, then the journal. */
export function recordEntries(state: WorkflowState): JournalEntry[] {
  return state.pinned ? [...state.pinned, ...state.journal] : state.journal;
}

/** The record of an instance never started. */
export function newWorkflowState(): WorkflowState {
  return { status: 'new', journal: [], completed: 0, signals: [], notify: [] };
}

/**
 * An instance as `client.workflowStatus`, the `workflowStatus` query and `start`'s reply show
 * it: no journal. `Output`: what its run returns, read back as JSON (`output`).
 */
export interface WorkflowSummary<Output = unknown, Progress = unknown> {
  readonly id: string;
  readonly status: WorkflowStatus;
  readonly startedAt?: number;
  readonly endedAt?: number;
  readonly output?: JsonOf<Output>;
  readonly error?: SerializedError;
  /** Commands issued so far (by the current run). */
  readonly steps: number;
  /** Runs that ended in `ctx.continueAsNew` before the current one; absent for none. */
  readonly continued?: number;
  /** What the run last gave `ctx.setProgress`, as JSON; kept once it ends. */
  readonly progress?: JsonOf<Progress>;
  readonly paused?: { error: SerializedError; version: string };
  /**
   * Set while it ends: its run failed or it was cancelled, and its compensations run (a paused
   * one's once its code replays). `status` is what it will end as.
   */
  readonly ending?: { status: 'failed' | 'cancelled'; error: SerializedError };
  /** When the run times out (its workflow's `timeoutMs` after its start), until it ends. */
  readonly deadlineAt?: number;
}

/** `state` as a {@link WorkflowSummary}. */
export function summarize(id: string, state: WorkflowState): WorkflowSummary {
  return {
    id,
    status: state.status,
    steps: sealedCount(state) + state.journal.length,
    ...(state.startedAt === undefined ? {} : { startedAt: state.startedAt }),
    ...(state.endedAt === undefined ? {} : { endedAt: state.endedAt }),
    ...(state.output === undefined ? {} : { output: state.output }),
    ...(state.error === undefined ? {} : { error: state.error }),
    ...(state.progress === undefined ? {} : { progress: state.progress }),
    ...(state.continued === undefined ? {} : { continued: state.continued }),
    ...(state.paused === undefined ? {} : { paused: state.paused }),
    ...(state.ending === undefined
      ? {}
      : { ending: { status: state.ending.status, error: state.ending.error } }),
    ...(state.deadlineAt === undefined ? {} : { deadlineAt: state.deadlineAt }),
  };
}

/**
 * A parent's cancel (or terminate) of the child its command `seq` started: the command and its
 * run named, for a start that comes after it (see `WorkflowState.endedStarts`).
 */
export function endOfChild(
  state: WorkflowState,
  seq: number,
  reason: string,
): { reason: string; seq: number; run?: string } {
  return state.runId === undefined ? { reason, seq } : { reason, seq, run: state.runId };
}
