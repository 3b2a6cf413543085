import {
  type ActorRef,
  type AnyActorDefinition,
  type AnyQueryDefinition,
  type ArgsOf,
  type Caller,
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
  isRetentionTimer,
  Registry,
  seededRandom,
} from '@baton/core/adapter';
import type { EmbeddedBackend } from '@baton/embedded';
import type { Action } from './Action.ts';
import {
  agingJumpAction,
  chooseFault,
  type IngressSend,
  lateRedriveAction,
  strandedRedriveAction,
  sweepAction,
} from './faultActions.ts';
import { Gates, settle } from './Gates.ts';
import { InvariantMonitor } from './InvariantMonitor.ts';
import { LateCopies } from './LateCopies.ts';
import { OutboxHolders } from './OutboxHolders.ts';
import {
  DeadLetterBook,
  endFailingAction,
  queueRedriveAction,
  type RedriveLoop,
  redriveAction,
  resumeAction,
} from './operatorActions.ts';
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
/** Event-loop turns a run waits for a task between gates before calling it stuck. */
const MAX_SETTLES = 1_000;

/**
 * How long after a send a client may retry it under the same key: the engine's idempotency
 * retention (14 days by default) less its day of margin for a sender's clock. Past it, the key's
 * outcome is gone, and a send under it is a new message (docs: use a key for one message only).
 */
const RETRY_WINDOW_MS = 13 * 24 * 60 * 60 * 1000;

/** The chance, at each step of progress, that a copy kept aside is redriven late. */
const LATE_REDRIVE_CHANCE = 0.05;

/** The chance, at each step of progress, that a paused actor is resumed. */
const RESUME_CHANCE = 0.01;

/**
 * The longest a run waits, once all else is done, with an actor paused: a timer due sooner
 * fires into its inbox while it is paused; the actor is resumed before a longer wait.
 */
const PAUSED_WAIT_MS = 5 * 60_000;

/** Why a run stops with a task that neither parks at a gate nor ends. */
const STUCK =
  "a task is stuck outside the gates: a worker's task awaits something the simulation does not control. Most often that is real I/O in an effect or a workflow step — a webhook() POSTs for real, an effect's or a step's fetch, a timer, a promise that never settles. Give the simulation in-memory stand-ins: an effect() of the same name in `effects` that records its calls instead (a webhook's too), and steps whose I/O a fake behind them answers at once";

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
  readonly #pending: Array<{ label: string; to: string; key: string; send: IngressSend }> = [];
  /** The ingress sends made, and when: a client retries one under its key (`duplicateIngress`). */
  readonly #submitted: Array<{
    readonly send: IngressSend;
    readonly to: string;
    readonly key: string;
    readonly at: number;
  }> = [];
  /** Idempotency key → the message id the client gave it. */
  readonly #messageIds = new Map<string, string>();
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
    const send: IngressSend = async (client) => {
      const sendOptions = { idempotencyKey, caller, ...awaited };
      const { messageId } = await client.send(to, name, payload, sendOptions);
      this.#messageIds.set(idempotencyKey, messageId);
    };
    const label = `ingress ${name} → ${to.id} (${idempotencyKey})`;
    this.#pending.push({ label, to: to.id, key: idempotencyKey, send });
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
      const loop = this.#deadLetters.loop;
      if (loop) throw this.#fail(redriveLoop(loop));
      if (this.stats.steps >= maxSteps) {
        throw this.#fail(
          `not quiet after ${maxSteps} steps: ${JSON.stringify(this.backend.queue.counts())}, outbox ${this.backend.store.outboxSize()}`,
        );
      }
      const action = this.#choose();
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
    const id = this.#messageIds.get(idempotencyKey) ?? idempotencyKey;
    return (await this.#cluster.client.outcome(id)) as SentOutcome<Reply> | undefined;
  }

  /**
   * A workflow instance as `client.workflowStatus` reads it: its status, its output typed as its
   * run returns it (as JSON), or its error. `new` for an instance never started or halted.
   *
   * @example
   * expect(await sim.workflowStatus(Checkout.ref('o-1'))).toMatchObject({ status: 'completed' });
   */
  workflowStatus<Output>(ref: WorkflowRef<unknown, Output>): Promise<WorkflowSummary<Output>> {
    return this.#cluster.client.workflowStatus(ref);
  }

  /**
   * Whether the sender of the message sent with `idempotencyKey` (an ask: `awaited`) was answered
   * DEAD_LETTERED when the engine kept it as a dead letter — and then how many times the run's
   * operator, refused a plain redrive of it, redrove it with force (`forced`); `undefined` when
   * it never was. A message applied after that answer must have been forced.
   */
  answered(idempotencyKey: string): { readonly forced: number } | undefined {
    return this.#deadLetters.answered(this.#messageIds.get(idempotencyKey) ?? idempotencyKey);
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

  #choose(): Action | undefined {
    // A client retries a send within its key's retention only: later, it would be a new send.
    const since = this.clock.now() - RETRY_WINDOW_MS;
    // Nor to an actor paused unless copies to it are allowed (`Faults.pauseBusy`).
    const { paused, parkedIngress } = this.#cluster.context;
    const submitted = this.#submitted
      .filter((s) => s.at > since && paused.get(s.to)?.busy !== false)
      .filter((s) => !parkedIngress.has(this.#messageIds.get(s.key) ?? ''))
      .map((s) => s.send);
    const ingress = { pending: this.#pending.length, submitted };
    const room = this.#until === undefined ? undefined : this.#until - this.clock.now();
    return chooseFault(this.#cluster, ingress, room) ?? this.#progress();
  }

  /** Normal progress: resume a parked call, submit ingress, start a poll; else wait or sweep. */
  #progress(): Action | undefined {
    const cluster = this.#cluster;
    const actions: Action[] = this.#gates.parked.map((call, index) => ({
      label: `p${call.processId} ${call.label}`,
      run: () => this.#gates.take(index).resume(),
    }));
    const next = this.#pending[0];
    if (next) {
      actions.push({
        label: next.label,
        run: async () => {
          this.#pending.shift();
          const { send, to, key } = next;
          this.#submitted.push({ send, to, key, at: this.clock.now() });
          await next.send(cluster.client);
        },
      });
    }
    // A rolling deploy goes on, now and then: the next process on old code is replaced by one
    // on the new.
    if (cluster.rolling && this.#rng() < this.#settings.faults.roll) {
      actions.push({
        label: 'roll the deploy on: one more process runs the new code',
        run: () => {
          this.stats.rolls++;
          cluster.rollOne();
        },
      });
    }
    // Dead letters are redriven as an operator would once the cause is fixed (up to
    // `deadLetterRedrives` times each).
    const letter = this.#deadLetters.next();
    if (letter) actions.push(redriveAction(cluster, letter));
    // Now and then the operator ends a message failing at an actor's head rather than wait.
    const failing = this.#deadLetters.nextFailing();
    if (failing && this.#rng() < this.#settings.faults.endFailing) {
      actions.push(endFailingAction(cluster, failing));
    }
    if (this.backend.queue.deadLetters().length > 0) actions.push(queueRedriveAction(cluster));
    // Copies kept aside past a retention jump come back at any step, one at a time (the rest at
    // the end), so that some come between a new life's messages.
    const late = this.#lateCopies.waiting > 0;
    if (late && this.#rng() < LATE_REDRIVE_CHANCE) actions.push(lateRedriveAction(cluster));
    // Stranded messages come back at any step once they waited across a time jump; the rest
    // wait for one until all else is done.
    if (this.#stranded.aged > 0 && this.#rng() < LATE_REDRIVE_CHANCE) {
      actions.push(strandedRedriveAction(cluster, true));
    }
    const counts = this.backend.queue.counts();
    for (const process of cluster.processes) {
      if (counts.receivable > 0 && process.active === 0) {
        actions.push({
          label: `p${process.id} poll`,
          run: () => cluster.task(process, () => process.worker.poll()),
        });
      }
    }
    // A paused actor is resumed now and then while work goes on.
    const paused = [...cluster.context.paused.keys()];
    if (paused.length > 0 && this.#rng() < RESUME_CHANCE) {
      actions.push(resumeAction(cluster, paused[Math.floor(this.#rng() * paused.length)]!));
    }
    if (actions.length > 0) return actions[Math.floor(this.#rng() * actions.length)];
    if (cluster.all().some((p) => p.active > 0)) return undefined;
    if (late) return lateRedriveAction(cluster);
    if (paused.length === 0) return this.#quiet(counts)?.action;
    // Once all else is done, a paused actor is resumed, so that every run ends with its parked
    // messages applied: at once, or after a short wait (a timer due soon fires while it is
    // paused; a long one, such as a workflow's sleep, would time its asks out).
    const quiet = this.#quiet(counts);
    const soon = quiet !== undefined && quiet.at - this.clock.now() <= PAUSED_WAIT_MS;
    if (soon && this.#rng() < 0.5) return quiet.action;
    return resumeAction(cluster, paused[0]!);
  }

  /**
   * With nothing to do now: the wait for the next message to be visible, the sweep of an
   * outbox, stranded messages' redrive, or the wait for the next timer — and the virtual time
   * it takes the run to (now, for all but the waits); `undefined` once the run is quiet.
   */
  #quiet(
    counts: ReturnType<EmbeddedBackend['queue']['counts']>,
  ): { readonly action: Action; readonly at: number } | undefined {
    const cluster = this.#cluster;
    const now = this.clock.now();
    const visibleAt = this.backend.queue.nextVisibleAt();
    // A bounded run does not wait past its bound, but still sweeps and fires what is due.
    if (counts.total > 0 && visibleAt !== undefined && !this.#pastBound(visibleAt)) {
      const wait = { label: `wait until ${visibleAt}`, run: () => this.clock.advanceTo(visibleAt) };
      return { action: wait, at: visibleAt };
    }
    if (this.backend.store.outboxSize() > 0) return { action: sweepAction(cluster), at: now };
    if (this.#stranded.waiting > 0) {
      // All else is done: they wait across a time jump first, within the budget.
      const { agingJumpBudget } = this.#settings.faults;
      const jump =
        this.stats.agingJumps < agingJumpBudget && cluster.idle() && this.#until === undefined;
      const action = jump ? agingJumpAction(cluster) : strandedRedriveAction(cluster, false);
      return { action, at: jump ? Number.POSITIVE_INFINITY : now };
    }
    // Durable timers still stored: wait until the soonest is due, and let a sweep fire it. A
    // finished workflow's expiry is housekeeping, not work: fired once due, but no time passes
    // for it alone, so a run ends with its finished instances still readable (`idle` expires them).
    const timerAt = this.backend.store.nextTimerAt(
      (timer) => timer.at > now && isRetentionTimer(timer),
    );
    if (timerAt !== undefined && !this.#pastBound(timerAt)) {
      const sweep = sweepAction(cluster);
      const action = {
        label: `wait until a timer is due at ${timerAt}, then ${sweep.label}`,
        run: () => {
          this.clock.advanceTo(timerAt);
          return sweep.run();
        },
      };
      return { action, at: timerAt };
    }
    return undefined;
  }

  /** Whether waiting until `time` would take a bounded run past its bound. */
  #pastBound(time: number): boolean {
    return this.#until !== undefined && time > this.#until;
  }

  #fail(message: string): SimulationError {
    return new SimulationError(message, this.seed, this.#trace);
  }
}

/** Why a run stops at a message whose dead letter keeps coming back. */
function redriveLoop(loop: RedriveLoop): string {
  return `handler "${loop.handler}" of ${loop.actorId} failed message ${loop.messageId} again after ${loop.redrives} redrives of its dead letter, so the run stops redriving it: ${loop.error}. A handler that throws an Error is retried, then its message is dead-lettered: to expect that, pass deadLetterRedrives: 0 and check sim.outcome(key) for DEAD_LETTERED`;
}
