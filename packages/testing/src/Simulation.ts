import {
  type ActorRef,
  type AnyActorDefinition,
  type AnyQueryDefinition,
  type ArgsOf,
  type Caller,
  ErrorCode,
  type IdentityOf,
  type MessageName,
  type PayloadOf,
  type ReplyOf,
  type ResultOf,
  type StateOf,
  SYSTEM,
  type WorkflowRef,
  type WorkflowSummary,
} from '@baton/core';
import {
  type ActorRecord,
  authorizeMessage,
  invalidArgument,
  Registry,
  seededRandom,
} from '@baton/core/adapter';
import type { EmbeddedBackend } from '@baton/embedded';
import { chooseAction } from './chooseAction.ts';
import { DeadLetterBook, type RedriveLoop } from './DeadLetterBook.ts';
import { Gates, settle } from './Gates.ts';
import { IngressLog } from './IngressLog.ts';
import { InvariantMonitor } from './InvariantMonitor.ts';
import { LateCopies } from './LateCopies.ts';
import { OutboxHolders } from './OutboxHolders.ts';
import { runQuery } from './runQuery.ts';
import type { SentKey, SentOutcome } from './SentKey.ts';
import { SimCluster } from './SimCluster.ts';
import { SimulationError } from './SimulationError.ts';
import { resolveOptions, type SimSettings, type SimulationOptions } from './SimulationOptions.ts';
import { emptyStats, type SimulationStats } from './SimulationStats.ts';
import { StrandedMessages } from './StrandedMessages.ts';
import { VirtualClock } from './VirtualClock.ts';

export { SimulationError } from './SimulationError.ts';
export type { SimulationOptions } from './SimulationOptions.ts';

/** Event-loop turns a run waits for a task between gates before calling it stuck. */
const MAX_SETTLES = 1_000;

/** Why a run stops with a task that neither parks at a gate nor ends. */
const STUCK =
  "a task is stuck outside the gates: a worker's task awaits something the simulation does not control. Most often that is real I/O in an effect or a workflow step — a webhook() POSTs for real, an effect's or a step's fetch, a timer, a promise that never settles. Give the simulation in-memory stand-ins: an effect() of the same name in `effects` that records its calls instead (a webhook's too), and steps whose I/O a fake behind them answers at once";

/**
 * A deterministic simulation of Baton on the embedded backend: real worker processes and a
 * sweeper whose I/O calls interleave in an order chosen by a seed, on virtual time, with crashes
 * at every I/O boundary, restarts from the journal (some compacted first), expired visibility
 * timeouts, duplicate ingress, redelivered messages, partial and reordered queue sends, and
 * time jumps past the mark retention. `run()` drives it until nothing is left to do.
 *
 * Besides the invariants checked in flight ({@link InvariantMonitor}), it checks that the
 * sweeper never finds an orphan: an outbox item whose inbox messages were all deleted from the
 * queue, so that nothing but the sweeper would ever send it (e.g. a worker that acks before it
 * drains).
 *
 * @example
 * const sim = new Simulation({ actors: [Account], seed: 7 });
 * sim.send(Account.ref('alice'), 'deposit', { amount: 5 });
 * await sim.run();
 * expect(await sim.state(Account.ref('alice'))).toEqual({ balance: 5 });
 */
export class Simulation {
  readonly seed: number;
  readonly clock = new VirtualClock();
  readonly stats: SimulationStats = emptyStats();
  readonly #settings: SimSettings;
  readonly #registry: Registry;
  readonly #rng: () => number;
  readonly #gates = new Gates();
  readonly #trace: string[] = [];
  get trace(): readonly string[] {
    return this.#trace;
  }
  readonly #monitor = new InvariantMonitor();
  readonly #deadLetters: DeadLetterBook;
  readonly #lateCopies: LateCopies;
  readonly #stranded: StrandedMessages;
  readonly #cluster: SimCluster;
  /** The ingress sends scheduled and made, and the message ids they were given. */
  readonly #ingress = new IngressLog();
  #nextKey = 1;
  /** The virtual time a bounded run goes no further than (`run({ forMs })`). */
  #until: number | undefined;

  constructor(options: SimulationOptions) {
    this.seed = options.seed;
    this.#settings = resolveOptions(options);
    this.#registry = new Registry(this.#settings.actors);
    this.#rng = seededRandom(options.seed);
    const { lateRedrive, lateRedriveBudget, strand, strandBudget } = this.#settings.faults;
    this.#lateCopies = new LateCopies(lateRedrive, lateRedriveBudget);
    this.#stranded = new StrandedMessages(strand, strandBudget);
    this.#deadLetters = new DeadLetterBook(
      this.#settings.deadLetterRedrives,
      (id, forgottenGaps) =>
        this.#lateCopies.redriven.has(id) || this.#stranded.mayBeApplied(id, forgottenGaps),
    );
    this.#cluster = new SimCluster({
      settings: this.#settings,
      clock: this.clock,
      rng: this.#rng,
      gates: this.#gates,
      stats: this.stats,
      monitor: this.#monitor,
      holders: new OutboxHolders(),
      deadLetters: this.#deadLetters,
      lateCopies: this.#lateCopies,
      stranded: this.#stranded,
      paused: new Map(),
      parkedIngress: new Set(),
    });
    this.#cluster.open(false);
  }

  /**
   * Schedules an ingress send; the run decides when it reaches the queue. Validates at once.
   * @returns the idempotency key, by which {@link outcome} finds the message's outcome (typed by
   * the handler's reply)
   */
  send<Def extends AnyActorDefinition, Name extends MessageName<Def>>(
    to: ActorRef<Def>,
    name: Name,
    payload: PayloadOf<Def, Name>,
    options: {
      idempotencyKey?: string;
      /**
       * Sends it as a client's ask does (`SendOptions.awaited`): told DEAD_LETTERED if it is kept
       * as a dead letter, so the run's operator must force its redrive ({@link answered}).
       */
      awaited?: boolean;
      /**
       * Who sends it, as a host authenticated them (`callerOf({ userId: 'bob' })`): the handler
       * must be public and its `authorize` let this caller through, or `send` throws FORBIDDEN
       * at once; the handler sees it as `ctx.caller`. @default trusted code (`{ kind: 'system' }`),
       * which may send any handler
       */
      caller?: Caller;
    } = {},
  ): SentKey<ReplyOf<Def, Name>> {
    const caller = options.caller ?? SYSTEM;
    authorizeMessage(this.#registry, caller, to.id, name, payload);
    const idempotencyKey = options.idempotencyKey ?? `sim-${this.seed}-${this.#nextKey++}`;
    const awaited = options.awaited === true ? { awaited: true } : {};
    const label = `ingress ${name} → ${to.id} (${idempotencyKey})`;
    this.#ingress.schedule(label, to.id, idempotencyKey, (client) => {
      const sendOptions = { idempotencyKey, caller, ...awaited };
      return client.send(to, name, payload, sendOptions);
    });
    return idempotencyKey;
  }

  /**
   * Runs until quiet: everything sent, processed and drained, and every timer fired that work
   * waits on. A finished workflow's expiry is fired only once due (time passed for other timers,
   * or {@link idle}): after `run()`, an instance that finished is still there to read.
   *
   * With `forMs`, virtual time goes no further than `forMs` from now: the run stops where it
   * would wait past that (a timer, a message's visibility), with the clock at that point, so that
   * what is sent next arrives then — a signal on day 3 of a week's sleep. Such a run takes no
   * fault's jump of time past its bound (`retentionJump`, `agingJump`, a long pause, a
   * visibility timeout). Under faults, work may still be under way at the bound: a message a
   * crash left waits out the queue's visibility timeout (`visibilityTimeoutMs`), so bound a run
   * by more than that when it must see the work sent before it done.
   * Throws a {@link SimulationError}.
   *
   * @example
   * sim.send(Trial.ref('t1'), 'start', { input: { days: 7 } });
   * await sim.run({ forMs: 3 * DAY }); // the trial sleeps on
   * sim.send(Trial.ref('t1'), 'signal', { name: 'upgrade', payload: {} });
   * await sim.run(); // the rest of the week, and what the signal did
   */
  async run(options: { readonly forMs?: number } = {}): Promise<SimulationStats> {
    const { forMs } = options;
    if (forMs !== undefined && !(Number.isFinite(forMs) && forMs >= 0)) {
      throw invalidArgument(
        `run's forMs must be a finite number of milliseconds, 0 or more, got ${forMs}`,
      );
    }
    this.#until = forMs === undefined ? undefined : this.clock.now() + forMs;
    try {
      return await this.#runSteps();
    } finally {
      if (this.#until !== undefined && this.clock.now() < this.#until) {
        this.clock.advanceTo(this.#until);
      }
      this.#until = undefined;
    }
  }

  async #runSteps(): Promise<SimulationStats> {
    const maxSteps = this.#settings.maxSteps;
    let settling = 0;
    for (;;) {
      if (this.#monitor.violations.length > 0)
        throw this.#fail(this.#monitor.violations.join('; '));
      const { loop, fault } = this.#deadLetters;
      if (loop) throw this.#fail(redriveLoop(loop));
      if (fault) throw this.#fail(codeFault(fault));
      if (this.stats.steps >= maxSteps) {
        throw this.#fail(
          `not quiet after ${maxSteps} steps: ${JSON.stringify(this.backend.queue.counts())}, outbox ${this.backend.store.outboxSize()}`,
        );
      }
      const action = chooseAction(this.#cluster, this.#ingress, this.#until);
      if (!action) {
        // A task between gates that waits on the event loop (a workflow's run settling over
        // a few macrotasks) gets its turns before the run counts as stuck.
        if (this.#cluster.all().some((p) => p.active > 0) && settling++ < MAX_SETTLES) {
          await settle();
          continue;
        }
        break;
      }
      settling = 0;
      this.stats.steps++;
      this.#trace.push(`${this.stats.steps} @${this.clock.now()} ${action.label}`);
      if (this.#trace.length > 200) this.#trace.shift();
      await action.run();
      await settle();
      this.clock.advance(Math.floor(this.#rng() * 20));
    }
    if (this.#cluster.all().some((p) => p.active > 0)) throw this.#fail(STUCK);
    if (this.#monitor.violations.length > 0) throw this.#fail(this.#monitor.violations.join('; '));
    return this.stats;
  }

  /**
   * Lets `ms` pass between two `run()`s, as a long quiet time does: messages sent before are
   * past the queue's retention (never redelivered), and the store deletes what expired — such
   * as the records of actors halted long enough ago, whose next message starts a new life. The
   * next `run()` fires the timers due by then, finished workflows' expiries among them.
   *
   * @example
   * await sim.run();
   * sim.idle(3 * 24 * 60 * 60 * 1000);
   * sim.send(Session.ref('s1'), 'visit', { id: 'v9' });
   * await sim.run();
   */
  idle(ms: number): void {
    this.clock.advance(ms);
    this.#cluster.timeJumped();
  }

  /** The committed state of an actor (its initial state if it never committed). */
  async state<Def extends AnyActorDefinition>(ref: ActorRef<Def>): Promise<StateOf<Def>> {
    const record = await this.backend.store.load(ref.id);
    if (record) return record.state as StateOf<Def>;
    return this.#registry.definition(ref.type).initial(ref.key) as StateOf<Def>;
  }

  /**
   * What `query` gives a subscriber now, with `args` and `identity` as `ctx.identity`: run once
   * against the committed state (see {@link runQuery}; its `authorize` is not asked).
   *
   * @example
   * await sim.run();
   * expect(await sim.query(balance, { account: 'alice' })).toBe(70);
   */
  query<Q extends AnyQueryDefinition>(
    definition: Q,
    args: ArgsOf<Q>,
    identity?: IdentityOf<Q>,
  ): Promise<ResultOf<Q>> {
    return runQuery(
      definition,
      args,
      { registry: this.#registry, store: this.backend.store },
      identity,
    );
  }

  /** Every committed actor record. */
  records(): ActorRecord[] {
    return this.backend.store.records();
  }

  /**
   * The stored outcome of an ingress message, by the idempotency key {@link send} returned: its
   * reply typed as the handler's, or its error; `undefined` if it was not processed.
   */
  async outcome<Reply>(idempotencyKey: SentKey<Reply>): Promise<SentOutcome<Reply> | undefined> {
    const id = this.#ingress.messageId(idempotencyKey);
    return (await this.#cluster.client.outcome(id)) as SentOutcome<Reply> | undefined;
  }

  /**
   * A workflow instance as `client.workflowStatus` reads it: its status, its output typed as its
   * run returns it (as JSON), or its error. `new` for an instance never started or halted.
   *
   * @example
   * expect(await sim.workflowStatus(Checkout.ref('o-1'))).toMatchObject({ status: 'completed' });
   */
  workflowStatus<Output, Progress = unknown>(
    ref: WorkflowRef<unknown, Output, any, Progress>,
  ): Promise<WorkflowSummary<Output, Progress>> {
    return this.#cluster.client.workflowStatus(ref);
  }

  /**
   * Whether the sender of the message sent with `idempotencyKey` (an ask: `awaited`) was answered
   * DEAD_LETTERED when the engine kept it as a dead letter — and then how many times the run's
   * operator, refused a plain redrive of it, redrove it with force (`forced`); `undefined` when
   * it never was. A message applied after that answer must have been forced.
   */
  answered(idempotencyKey: string): { readonly forced: number } | undefined {
    return this.#deadLetters.answered(this.#ingress.messageId(idempotencyKey));
  }

  /**
   * The message ids of the copies redriven late of messages that may have been applied before:
   * those the `lateRedrive` fault redrove, each of a message processed before a retention jump,
   * and stranded messages (the `strand` fault) a drain also sent past the dedupe window. Such a
   * copy may end kept as an engine dead letter (DEAD_LETTERED, too old to tell whether it was
   * applied), which the run's operator never redrives.
   */
  get lateCopies(): ReadonlySet<string> {
    return new Set([...this.#lateCopies.redriven, ...this.#stranded.deliveredIds]);
  }

  /**
   * The channels (`from→to`; `*→to`: any sender) on which a message left the inbox's order — kept
   * as an engine dead letter, moved to the queue's dead-letter queue, or stranded there — and may
   * have been applied, once redriven, after messages sent later on its channel: the one exception
   * to per-channel FIFO (I3). On every other channel, messages are applied in send order.
   */
  get detouredChannels(): ReadonlySet<string> {
    return new Set([...this.#deadLetters.detours, ...this.#stranded.channels]);
  }

  /** The backend as it is now (it is replaced on a simulated restart). */
  get backend(): EmbeddedBackend {
    return this.#cluster.backend;
  }

  #fail(message: string): SimulationError {
    return new SimulationError(message, this.seed, this.#trace);
  }
}

/** How a test expects dead letters. */
const EXPECT_LETTERS =
  'to expect that, pass deadLetterRedrives: 0 and check sim.outcome(key) for DEAD_LETTERED';

/** Why a run stops at a message whose dead letter keeps coming back. */
function redriveLoop(loop: RedriveLoop): string {
  const why =
    loop.cause === undefined || loop.cause === ErrorCode.RETRYABLE
      ? 'A handler that throws an Error is retried, then its message is dead-lettered'
      : `It was kept for ${loop.cause}: fix what its error names`;
  return `handler "${loop.handler}" of ${loop.actorId} failed message ${loop.messageId} again after ${loop.redrives} redrives of its dead letter, so the run stops redriving it: ${loop.error}. ${why}; ${EXPECT_LETTERS}`;
}

/** Why a run stops at a message kept for its code's fault, which no redrive applies. */
function codeFault(fault: RedriveLoop): string {
  return `handler "${fault.handler}" of ${fault.actorId} left message ${fault.messageId} kept as a dead letter for its code's fault, which no redrive applies until the code is fixed: ${fault.error}. Fix what its error names; ${EXPECT_LETTERS}`;
}
