/**
 * The replayer's vocabulary: what a live turn lets a run do to the world, an issued command of
 * one replay, and how a drive ended.
 */
import type { ActorRef } from '../actor.ts';
import type { Caller } from '../caller.ts';
import type { TurnDeadline } from '../contextSlots.ts';
import type { BatonError, SerializedError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import type { InnerSpan } from '../openTelemetry.ts';
import type { JournalEntry } from './journal.ts';
import type { StepInfo, StepOptions } from './WorkflowContext.ts';

/** What a live turn does to the world; a check replay (`replayWorkflow`) has none. */
export interface ReplayHost {
  readonly self: { readonly type: string; readonly key: string; readonly id: string };
  readonly caller: Caller;
  readonly log: Logger;
  now(): number;
  random(): number;
  uuid(): string;
  /** A fresh unguessable secret (a callback's). */
  secret(): string;
  ask(seq: number, to: ActorRef, name: string, payload: unknown, timeoutMs?: number): void;
  send(to: ActorRef, name: string, payload: unknown): void;
  /** Arms the timer of command `seq` (a sleep, a timeout, a retry). */
  schedule(seq: number, at: number, kind: 'sleep' | 'timeout' | 'retry'): void;
  cancelTimer(seq: number): void;
  /** Starts a span under the turn's span (a step's); absent without tracing. */
  span?(name: string, attributes: Record<string, string | number>): InnerSpan;
  /**
   * Rejects with a version conflict unless the turn's record is still the store's: called before
   * a step, whose effect outside no conflict at the commit could take back.
   */
  confirm?(): Promise<void>;
  /**
   * Present when the turn's record holds effects of earlier messages of the turn, not committed
   * yet (see `COMMIT_FIRST`): asks the turn to commit them first and drive again on the committed
   * record, where a step may run.
   */
  readonly commitFirst?: (() => void) | undefined;
  /** When the host stops the turn's work, if it says, and the turn's steps (see `TURN_DEADLINE`). */
  readonly deadline?: TurnDeadline | undefined;
}

/** How a drive ended. */
export type DriveResult =
  | { readonly kind: 'completed'; readonly value: unknown }
  | { readonly kind: 'failed'; readonly error: BatonError }
  | { readonly kind: 'compensated'; readonly errors: readonly SerializedError[] }
  | { readonly kind: 'suspended'; readonly more: boolean }
  /** The run ended in `ctx.continueAsNew`: the next run begins with `input`. */
  | { readonly kind: 'continued'; readonly input: unknown }
  /** NON_DETERMINISTIC (the code does not replay the history), or RETRYABLE (the run threw). */
  | { readonly kind: 'paused'; readonly error: BatonError };

/** One issued command of this replay. */
export interface Slot {
  readonly seq: number;
  /** Its journal entry, in the record of the turn now driving the run. */
  entry: JournalEntry;
  readonly promise: Promise<unknown>;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
  /** Issued now, past the journal. */
  readonly fresh: boolean;
  step?: { fn: (info: StepInfo) => unknown; options: StepOptions<unknown> };
  /** How many steps and compensations of its name this replay issued before it. */
  readonly nth: number;
  /** A call with a compensation: the saga runner waits for its reply (see `startRunner`). */
  compensable?: true;
  /** A compensable call that lost a race: its compensation runs as soon as its reply came. */
  undo?: true;
  /** A wait issued where its event had come: its timeout, armed if another wait takes the event. */
  timeoutMs?: number;
}
