/**
 * What one handler run produces, as its context collects it for the turn, and where a handling
 * stands besides its message (see `createHandlerContext`).
 */
import type { ActorContext } from '../ActorContext.ts';
import type { OverflowMark } from '../adapter/marks.ts';
import type { Timer } from '../adapter/storedRecords.ts';
import type { HandlingTrace } from '../adapter/traceContext.ts';
import type { StatePages, TurnDeadline } from '../contextSlots.ts';
import type { Send } from './outgoing.ts';

/** What one handler run produced, collected by its context. */
export interface HandlerEffects {
  readonly ctx: ActorContext<unknown>;
  /** Sends in call order, before sequence numbers are given; an ask carries its id. */
  readonly sends: Send[];
  reply: { set: boolean; value: unknown };
  /** Timers by id as the handler left them: scheduled (put) or cancelled (`null`). */
  timers: ReadonlyMap<string, Timer | null>;
  /** Whether the handler called `ctx.halt()`. */
  halted: boolean;
  /** Pages of state the handler moved out (see `StatePages` in contextSlots.ts). */
  readonly pages: OverflowMark[];
  /**
   * Whether the handler asked to be run again once the turn's earlier messages commit (see
   * `COMMIT_FIRST` in contextSlots.ts): what it did besides is dropped.
   */
  commitFirst: boolean;
  /** Whether the handler has returned (or thrown): `ctx` then refuses what would change the turn. */
  ended: boolean;
}

/** Where a handling stands besides its message: see `createHandlerContext`. */
export interface HandlingOptions {
  /** The message's place in the inbox, which the handler's log entries carry. */
  inboxPosition: string;
  /** Reads pages of the actor's state (see `StatePages` in contextSlots.ts). */
  readPages: StatePages['read'];
  trace?: HandlingTrace;
  /**
   * What tells this handling from every other of the actor, in any of its lives: the ids of
   * its asks and timer schedulings derive from it. The turn gives the record's life, the
   * version its commit builds on and the message's place in that commit.
   */
  handling: readonly unknown[];
  /** The handling's time (`ctx.now()`), read once by the turn for the message. */
  now: number;
  /** See `CONFIRM_RECORD` in contextSlots.ts. Default: none to confirm (the record was read from the store). */
  confirmRecord?: () => Promise<void>;
  /** Earlier messages of the turn wait to commit with this one: see `COMMIT_FIRST` in contextSlots.ts. */
  uncommitted?: boolean;
  /** See `TURN_DEADLINE` in contextSlots.ts. */
  deadline?: TurnDeadline | undefined;
}
