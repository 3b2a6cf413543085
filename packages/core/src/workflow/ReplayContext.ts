/**
 * The `ctx` a run gets: each method issues one command through the {@link Replayer}, which
 * answers from the journal or issues it anew.
 */
import type { ActorRef } from '../actor.ts';
import { ANONYMOUS, type Caller } from '../caller.ts';
import {
  BatonError,
  ErrorCode,
  errorFromJSON,
  type SerializedError,
  TerminalError,
  toBatonError,
} from '../errors.ts';
import type { JsonOf } from '../jsonOf.ts';
import type { Logger } from '../logger.ts';
import { callbackToken } from './callbackToken.ts';
import { compensatedCall, keepCallCompensation } from './callCompensation.ts';
import { checkCompensate, checkName, checkRaced, checkTimeout, dueAt } from './contextArguments.ts';
import { ContinueAsNew, nextInput } from './continueAsNew.ts';
import { armTimeout, warnIfBehind } from './eventWaits.ts';
import { type CommandKind, rulesAtLeast } from './journal.ts';
import { journalError } from './journalError.ts';
import { mapInLanes } from './mapInLanes.ts';
import { checkedProgress, PROGRESS_IN_STEP_LOG } from './progress.ts';
import type { Replayer } from './Replayer.ts';
import { isWaitingCommand, journaled, runContextInCompensation } from './replayErrors.ts';
import { replayLogger } from './replayLogger.ts';
import type { Slot } from './replayTypes.ts';
import { checkRetryPolicy } from './retry.ts';
import { keepCompensation } from './sagaStart.ts';
import type {
  CallOptions,
  RaceResult,
  RetryPolicy,
  StepInfo,
  StepOptions,
  WaitOptions,
  WorkflowCallback,
  WorkflowContext,
} from './WorkflowContext.ts';
import type { AnyWorkflowDefinition } from './workflow.ts';

/** Never settles: a command that waits, or one a check replay does not issue. */
const NEVER: Promise<never> = new Promise(() => {});

export class ReplayContext implements WorkflowContext {
  readonly #replayer: Replayer;
  readonly #origin: 'run' | 'runner';
  #log: Logger | undefined;
  /** Whether the run called `continueAsNew`: a run that returns all the same caught its marker. */
  continuing = false;

  constructor(replayer: Replayer, origin: 'run' | 'runner') {
    this.#replayer = replayer;
    this.#origin = origin;
  }

  get workflow(): string {
    return this.#replayer.definition.name;
  }
  get id(): string {
    return this.#replayer.host?.self.key ?? '';
  }
  get runId(): string {
    return this.#replayer.state.runId ?? '';
  }
  get caller(): Caller {
    return this.#replayer.state.caller ?? ANONYMOUS;
  }
  get log(): Logger {
    this.#log ??= replayLogger(this.#replayer);
    return this.#log;
  }

  /** A command's failure as it is journaled (see {@link Replayer.told}), cut to fit. */
  #failure(thrown: unknown): SerializedError {
    return journalError(this.told(thrown).toJSON());
  }

  /** `thrown` as the journal keeps it (see {@link Replayer.told}). */
  told(thrown: unknown): BatonError {
    return this.#replayer.told(toBatonError(thrown));
  }

  #issue(kind: CommandKind, name: string, to?: string): Slot | undefined {
    const replayer = this.#replayer;
    const sagas = this.#origin === 'run' ? replayer.sagas : undefined;
    const misused = sagas?.inCompensation && runContextInCompensation(replayer, kind, name);
    if (misused) throw misused;
    const slot = replayer.issue(kind, name, this.#origin, to);
    if (!slot && sagas?.started && isWaitingCommand(kind)) sagas.dropped = `${kind} "${name}"`;
    return slot;
  }

  /** `promise`, marked as command `slot`'s for `race`. */
  #tagged<T>(slot: Slot | undefined, promise: Promise<T>): Promise<T> {
    if (slot) this.#replayer.slotOf.set(promise, [slot.seq]);
    return promise;
  }

  step<T>(
    name: string,
    fn: (info: StepInfo) => T | Promise<T>,
    options: StepOptions<NoInfer<JsonOf<Awaited<T>>>> = {},
  ): Promise<JsonOf<Awaited<T>>> {
    checkName('ctx.step', name);
    if (typeof fn !== 'function') {
      throw new BatonError(
        ErrorCode.INVALID_ARGUMENT,
        `ctx.step("${name}", fn): fn must be a function`,
      );
    }
    checkRetryPolicy(`ctx.step("${name}")`, options.retry);
    const { timeoutMs } = options;
    if (timeoutMs !== undefined && !(Number.isFinite(timeoutMs) && timeoutMs > 0)) {
      throw new BatonError(
        ErrorCode.INVALID_ARGUMENT,
        `ctx.step("${name}"): timeoutMs must be a number of ms above 0, got ${String(timeoutMs)}`,
      );
    }
    // The slot resolves with the journaled result, its JSON.
    return this.#step('step', name, fn, options) as Promise<JsonOf<Awaited<T>>>;
  }

  /** A compensation: a step of its own kind, run by the saga runner. */
  compensate(
    name: string,
    fn: (info: StepInfo) => unknown,
    retry: RetryPolicy | undefined,
  ): Promise<unknown> {
    return this.#step('compensate', name, fn, retry ? { retry } : {});
  }

  #step(
    kind: 'step' | 'compensate',
    name: string,
    fn: (info: StepInfo) => unknown,
    options: StepOptions<never>,
  ): Promise<unknown> {
    const slot = this.#issue(kind, name);
    if (!slot) return NEVER;
    slot.step = { fn, options: options as StepOptions<unknown> };
    const done = slot.promise.then(
      (value) => {
        keepCompensation(this.#replayer, slot, value);
        return value;
      },
      (error: unknown) => {
        // Failed for good: its attempts may have had their effect all the same.
        keepCompensation(this.#replayer, slot, undefined);
        throw error;
      },
    );
    return this.#tagged(slot, done);
  }

  call(
    to: ActorRef,
    name: string,
    payload: unknown,
    options: CallOptions<unknown> = {},
  ): Promise<never> {
    checkCompensate(`ctx.call(…, "${name}", …)`, options.compensate);
    const slot = this.#issue('call', `${to?.type}.${name}`, to?.id);
    if (!slot) return NEVER;
    if (slot.fresh) {
      try {
        this.#replayer.host!.ask(slot.seq, to, name, payload, options.timeoutMs);
      } catch (error) {
        this.#replayer.complete(slot, { ok: false, error: this.#failure(error) }, true);
      }
    }
    const { compensate } = options;
    if (compensate) slot.compensable = true;
    const done = compensate
      ? compensatedCall(this.#replayer.sagas, slot, compensate)
      : slot.promise;
    return this.#tagged(slot, done as Promise<never>);
  }

  send(
    to: ActorRef,
    name: string,
    payload: unknown,
    options: Pick<CallOptions<undefined>, 'compensate'> = {},
  ): void {
    checkCompensate(`ctx.send(…, "${name}", …)`, options.compensate);
    const slot = this.#issue('send', `${to?.type}.${name}`, to?.id);
    if (!slot) return;
    const { entry } = slot;
    if (!slot.fresh) {
      if (entry.state === 'failed' && entry.error) throw journaled(errorFromJSON(entry.error));
    } else {
      try {
        this.#replayer.host!.send(to, name, payload);
        entry.state = 'done';
      } catch (error) {
        entry.state = 'failed';
        entry.error = this.#failure(error);
        throw error;
      }
    }
    if (options.compensate) {
      keepCallCompensation(this.#replayer.sagas, entry, options.compensate, undefined);
    }
  }

  sleep(duration: number | Date): Promise<void> {
    const host = this.#replayer.host;
    // Checked before the command is journaled: a misuse pauses the run, and fixed code issues
    // the sleep anew.
    const at = host && dueAt(duration, host.now());
    const slot = this.#issue('sleep', 'sleep');
    if (!slot) return NEVER;
    if (slot.fresh && host && at !== undefined) {
      slot.entry.until = at;
      host.schedule(slot.seq, at, 'sleep');
    }
    return this.#tagged(
      slot,
      slot.promise.then(() => undefined),
    );
  }

  waitForEvent<T = unknown>(name: string, options: WaitOptions = {}): Promise<T> {
    checkName('ctx.waitForEvent', name);
    const timeoutMs = checkTimeout(options);
    const slot = this.#issue('event', name);
    if (!slot) return NEVER;
    if (slot.fresh) {
      warnIfBehind(this.#replayer, slot, name);
      // An event that came before its wait is handed over once the run is quiescent (see
      // `handOver` in eventWaits.ts), not now: a race of two such waits must leave the loser's
      // event.
      if (this.#replayer.state.signals.some((signal) => signal.name === name)) {
        if (timeoutMs !== undefined) slot.timeoutMs = timeoutMs;
      } else armTimeout(this.#replayer.host, slot, timeoutMs);
    }
    return this.#tagged(slot, slot.promise as Promise<T>);
  }

  createCallback<T = unknown>(name: string, options: WaitOptions = {}): WorkflowCallback<T> {
    checkName('ctx.createCallback', name);
    const timeoutMs = checkTimeout(options);
    const slot = this.#issue('callback', name);
    if (!slot) return { token: '', result: NEVER };
    const host = this.#replayer.host;
    if (slot.fresh && host) {
      slot.entry.secret = host.secret();
      this.#replayer.drew();
      armTimeout(this.#replayer.host, slot, timeoutMs);
    }
    const self = host?.self.id ?? '';
    return {
      token: callbackToken.encode(self, slot.seq, slot.entry.secret ?? ''),
      result: this.#tagged(slot, slot.promise as Promise<T>),
    };
  }

  race<const T extends readonly Promise<unknown>[]>(commands: T): Promise<RaceResult<T>> {
    const replayer = this.#replayer;
    // Runs started earlier replay as they ran: a race of nothing awaited for ever.
    if (rulesAtLeast(replayer.state, 2)) checkRaced(commands);
    const seqs = commands.map((command) => replayer.slotOf.get(command));
    // A run started now races only what it can cancel (see `races` in the record): an entry
    // that is no command's promise pauses it. One an earlier version started replays as it ran.
    if (replayer.state.races === 'commands') {
      const untraced = seqs.findIndex((seq, i) => seq === undefined && commands[i] !== NEVER);
      if (untraced >= 0) {
        replayer.refuseRace(untraced);
        return NEVER;
      }
    }
    const raced = Promise.race(
      commands.map((command, index) => command.then((value) => ({ index, value }))),
    );
    const settled = raced.then(
      (won) => {
        replayer.cancel(seqs.filter((_, i) => i !== won.index).flatMap((seq) => seq ?? []));
        return won as RaceResult<T>;
      },
      (error) => {
        replayer.cancel(seqs.flatMap((seq) => seq ?? []));
        throw error;
      },
    );
    // A race is an entry of another race: what it raced is cancelled when it loses.
    if (replayer.state.races === 'commands') {
      replayer.slotOf.set(
        settled,
        seqs.flatMap((seq) => seq ?? []),
      );
    }
    return settled;
  }

  child(definition: AnyWorkflowDefinition, id: string, input: unknown): Promise<never> {
    const slot = this.#issue('child', definition?.name, childId(definition, id));
    if (!slot) return NEVER;
    const { seq } = slot;
    if (slot.fresh) {
      try {
        const ref = definition.ref(id);
        const { runId } = this.#replayer.state;
        const start = runId === undefined ? { input, seq } : { input, seq, run: runId };
        this.#replayer.host!.send(ref, '_child', start);
        slot.entry.child = ref.id;
      } catch (error) {
        this.#replayer.complete(slot, { ok: false, error: this.#failure(error) }, true);
      }
    }
    return this.#tagged(slot, slot.promise as Promise<never>);
  }

  parallel<T>(
    branches: readonly (() => Promise<T>)[],
    options: { readonly maxConcurrency?: number } = {},
  ): Promise<T[]> {
    return this.map(branches, (branch) => branch(), options);
  }

  map<I, T>(
    items: readonly I[],
    fn: (item: I, index: number) => Promise<T>,
    options: { readonly maxConcurrency?: number } = {},
  ): Promise<T[]> {
    // A run started now stops taking items at the first failure (see `rules` in the record).
    return mapInLanes(items, fn, options, rulesAtLeast(this.#replayer.state, 2));
  }

  now(): number {
    return this.#recorded('now', () => this.#replayer.host!.now(), Date.now) as number;
  }
  random(): number {
    return this.#recorded('random', () => this.#replayer.host!.random(), Math.random) as number;
  }
  uuid(): string {
    return this.#recorded(
      'uuid',
      () => this.#replayer.host!.uuid(),
      () => globalThis.crypto.randomUUID(),
    ) as string;
  }

  #recorded(kind: 'now' | 'random' | 'uuid', make: () => unknown, unrecorded: () => unknown) {
    const slot = this.#issue(kind, kind);
    if (!slot) return unrecorded();
    if (slot.fresh) {
      slot.entry.value = make();
      slot.entry.state = 'done';
      // Committed before a step runs: a step may hand out an id or a number drawn, and a run
      // may name or pick its step by the time it read (a redo after a crash reads a later one).
      this.#replayer.drew();
    }
    return slot.entry.value;
  }

  setProgress(value: unknown): void {
    const replayer = this.#replayer;
    // A step's (or a compensation's) function runs once, never replayed: a value set there
    // would be lost on a replay. Ignored, rather than failing the attempt and its outside work.
    if (replayer.attempting) {
      replayer.host?.log.warn(PROGRESS_IN_STEP_LOG, { workflow: replayer.definition.name });
      return;
    }
    // Once the run failed or was cancelled, the value stays where the run left it (code the
    // run goes on with while a call under way replies reaches no further, as it issues nothing).
    if (replayer.state.ending) return;
    const strict = rulesAtLeast(replayer.state, 2);
    replayer.progress = { value: checkedProgress(replayer.definition, value, strict) };
  }

  continueAsNew(input: unknown): never {
    const replayer = this.#replayer;
    if (this.#origin === 'runner' || replayer.attempting) {
      // Final: a step retried would run its outside work again, to fail the same way.
      throw new TerminalError(
        `ctx.continueAsNew of workflow "${replayer.definition.name}" was called inside a step's function or a compensation: call it from the run's code`,
      );
    }
    const next = new ContinueAsNew(nextInput(replayer.definition, input));
    this.continuing = true;
    throw next;
  }

  patched(id: string): boolean {
    checkName('ctx.patched', id);
    return this.#replayer.patched(id, this.#origin);
  }
}

/** The actor id of a child instance, or undefined for an id its `ref` refuses (it fails then). */
function childId(definition: AnyWorkflowDefinition, id: string): string | undefined {
  try {
    return definition.ref(id).id;
  } catch {
    return undefined;
  }
}
