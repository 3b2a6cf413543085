import {
  type ActorRecord,
  type ActorRef,
  type AnyActorDefinition,
  Client,
  type MessageName,
  type OutboxItem,
  type Outcome,
  type PayloadOf,
  type Queue,
  type QueueMessage,
  Registry,
  redriveDeadLetter,
  type StateOf,
  type StoreLimits,
  seededRandom,
} from '@baton/core';
import { createEmbeddedBackend, type EmbeddedBackend, MemoryJournal } from '@baton/embedded';
import { FaultyQueue } from './FaultyQueue.ts';
import { defaultFaults, type Faults } from './faults.ts';
import { Gates, settle } from './Gates.ts';
import { InvariantMonitor } from './InvariantMonitor.ts';
import { type SimPorts, SimProcess } from './SimProcess.ts';
import { emptyStats, type SimulationStats } from './SimulationStats.ts';
import { VirtualClock } from './VirtualClock.ts';

const DAY = 24 * 60 * 60 * 1000;

export interface SimulationOptions {
  readonly actors: readonly AnyActorDefinition[];
  /** The seed: the same seed and the same sends give the same run, step for step. */
  readonly seed: number;
  /** Worker processes polling the inbox (the sweeper runs in a process of its own). @default 2 */
  readonly processes?: number;
  /** Fault rates and budgets; the ones not given are {@link defaultFaults}. */
  readonly faults?: Partial<Faults>;
  /** A run not quiet after this many steps fails (liveness). @default 200,000 */
  readonly maxSteps?: number;
  /** @default 10 */
  readonly batchSize?: number;
  /** @default 30 s */
  readonly visibilityTimeoutMs?: number;
  /** Receives before the dead-letter queue. @default 1,000 (crashes alone never dead-letter) */
  readonly maxReceives?: number;
  /**
   * Deliveries of a failing message before the engine ends it as dead-lettered (the engine's
   * `maxAttempts`; crash redeliveries count too). @default 1,000 (crashes alone never dead-letter)
   */
  readonly maxAttempts?: number;
  /**
   * Peers an actor's record lists before marks move out into items of their own (the engine's
   * `recordPeers`). @default 1, so that marks move out and are read back in most runs
   */
  readonly recordPeers?: number;
  /** Backend limits; DynamoDB's by default. Small ones make turns split their batches. */
  readonly limits?: Partial<StoreLimits>;
  /**
   * How long an idle sender's mark is kept (the engine's `markRetentionMs`): far longer than any
   * message or duplicate stays in flight in a run (a sender forgets an idle channel after half of
   * it), and far shorter than the 14 days of idempotency records, so that a retention jump
   * prunes marks and nothing else. @default 1 day
   */
  readonly markRetentionMs?: number;
  /**
   * Wraps each worker's gated store and queue: to add behaviour of your own, or to check that
   * the simulation catches a broken engine (a mutant). See `SimProcessOptions.wrapPorts`.
   */
  readonly wrapPorts?: (ports: SimPorts, processId: number) => SimPorts;
}

/** A failed run: what went wrong, the seed to replay it, and the last steps taken. */
export class SimulationError extends Error {
  constructor(
    message: string,
    readonly seed: number,
    readonly trace: readonly string[],
  ) {
    super(
      `${message}\n  replay with seed ${seed}\n  last steps:\n    ${trace.slice(-40).join('\n    ')}`,
    );
    this.name = 'SimulationError';
  }
}

interface Action {
  readonly label: string;
  readonly run: () => Promise<void> | void;
}

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
  readonly #options: SimulationOptions;
  readonly #faults: Faults;
  readonly #registry: Registry;
  readonly #rng: () => number;
  readonly #gates = new Gates();
  readonly #journal = new MemoryJournal();
  readonly #trace: string[] = [];
  get trace(): readonly string[] {
    return this.#trace;
  }
  readonly #monitor = new InvariantMonitor();
  readonly #pending: Array<{ label: string; send: (client: Client) => Promise<unknown> }> = [];
  readonly #submitted: Array<(client: Client) => Promise<unknown>> = [];
  readonly #history: QueueMessage[] = [];
  /** Idempotency key → the message id the client gave it. */
  readonly #messageIds = new Map<string, string>();
  /** `actorId#seq` of each committed outbox item → queue seqs of the inbox messages holding it. */
  readonly #holders = new Map<string, readonly string[]>();
  /**
   * Where inbox messages moved (a dead-letter redrive, a replaced queue): `<generation>:<seq>`
   * to its new place. Holders are kept as they were received and followed through it, since a
   * stale worker may commit for messages that have moved meanwhile.
   */
  readonly #movedTo = new Map<string, string>();
  #backend!: EmbeddedBackend;
  #queue!: Queue;
  #workerQueue!: Queue;
  #client!: Client;
  #processes: SimProcess[] = [];
  #sweeper!: SimProcess;
  #nextProcess = 1;
  #nextKey = 1;
  /** The engine's dead letters now kept (`actorId` and message id), from the commits seen. */
  readonly #deadLetters = new Map<
    string,
    { actorId: string; messageId: string; redriven: boolean }
  >();
  /** Inbox queues replaced so far: the current one is `inbox` or `inbox-<n>`. */
  #queueGeneration = 0;

  constructor(options: SimulationOptions) {
    this.seed = options.seed;
    this.#options = options;
    this.#faults = { ...defaultFaults, ...options.faults };
    this.#registry = new Registry(options.actors);
    this.#rng = seededRandom(options.seed);
    this.#open(false);
  }

  /**
   * Schedules an ingress send; the run decides when it reaches the queue. Validates at once.
   * @returns the idempotency key, by which {@link outcome} finds the message's outcome
   */
  send<Def extends AnyActorDefinition, Name extends MessageName<Def>>(
    to: ActorRef<Def>,
    name: Name,
    payload: PayloadOf<Def, Name>,
    options: { idempotencyKey?: string } = {},
  ): string {
    this.#registry.resolve(to.id, name, payload);
    const idempotencyKey = options.idempotencyKey ?? `sim-${this.seed}-${this.#nextKey++}`;
    const send = async (client: Client) => {
      const { messageId } = await client.send(to, name, payload, { idempotencyKey });
      this.#messageIds.set(idempotencyKey, messageId);
    };
    this.#pending.push({ label: `ingress ${name} → ${to.id} (${idempotencyKey})`, send });
    return idempotencyKey;
  }

  /** Runs until quiet: everything sent, processed and drained. Throws a {@link SimulationError}. */
  async run(): Promise<SimulationStats> {
    const maxSteps = this.#options.maxSteps ?? 200_000;
    for (;;) {
      if (this.#monitor.violations.length > 0)
        throw this.#fail(this.#monitor.violations.join('; '));
      if (this.stats.steps >= maxSteps) {
        throw this.#fail(
          `not quiet after ${maxSteps} steps: ${JSON.stringify(this.#backend.queue.counts())}, outbox ${this.#backend.store.outboxSize()}`,
        );
      }
      const action = this.#choose();
      if (!action) break;
      this.stats.steps++;
      this.#trace.push(`${this.stats.steps} @${this.clock.now()} ${action.label}`);
      if (this.#trace.length > 200) this.#trace.shift();
      await action.run();
      await settle();
      this.clock.advance(Math.floor(this.#rng() * 20));
    }
    if (this.#allProcesses().some((p) => p.active > 0))
      throw this.#fail('a task is stuck outside the gates');
    if (this.#monitor.violations.length > 0) throw this.#fail(this.#monitor.violations.join('; '));
    return this.stats;
  }

  /** The committed state of an actor (its initial state if it never committed). */
  async state<Def extends AnyActorDefinition>(ref: ActorRef<Def>): Promise<StateOf<Def>> {
    const record = await this.#backend.store.load(ref.id);
    if (record) return record.state as StateOf<Def>;
    return this.#registry.definition(ref.type).initial(ref.key) as StateOf<Def>;
  }

  /** Every committed actor record. */
  records(): ActorRecord[] {
    return this.#backend.store.records();
  }

  /** The stored outcome of an ingress message, by the idempotency key {@link send} returned. */
  async outcome(idempotencyKey: string): Promise<Outcome | undefined> {
    return this.#client.outcome(this.#messageIds.get(idempotencyKey) ?? idempotencyKey);
  }

  /** The backend as it is now (it is replaced on a simulated restart). */
  get backend(): EmbeddedBackend {
    return this.#backend;
  }

  #allProcesses(): SimProcess[] {
    return [...this.#processes, this.#sweeper];
  }

  #choose(): Action | undefined {
    return this.#fault() ?? this.#progress();
  }

  /** A fault, when the dice say so and its budget allows. */
  #fault(): Action | undefined {
    const f = this.#faults;
    const s = this.stats;
    const busy = this.#gates.parked.length > 0 || this.#pending.length > 0;
    const roll = this.#rng();
    let threshold = 0;
    const options: Array<[number, () => boolean, () => Action]> = [
      [
        f.crash,
        () => s.crashes < f.crashBudget && this.#gates.parked.length > 0,
        () => this.#crash(),
      ],
      [f.restart, () => s.restarts < f.restartBudget && busy, () => this.#restart(false)],
      [
        f.timeout,
        () => s.timeouts < 10 && busy,
        () => this.#jump('timeout', this.#visibilityMs() + 1),
      ],
      [f.longPause, () => s.longPauses < 3 && busy, () => this.#jump('longPause', 6 * 60_000)],
      [
        f.duplicateIngress,
        () => s.duplicateIngress < 10 && this.#submitted.length > 0,
        () => this.#duplicate(),
      ],
      [f.redeliver, () => s.redeliveries < 10 && this.#history.length > 0, () => this.#redeliver()],
      [
        f.sweep,
        () => s.sweeps < f.sweepBudget && busy && this.#sweeper.active === 0,
        () => this.#sweep(),
      ],
      [
        f.compaction,
        () => s.compactionRestarts < f.compactionBudget && busy,
        () => this.#restart(true),
      ],
      [
        f.replaceQueue,
        () => s.queueReplacements < f.replaceQueueBudget && busy,
        () => this.#replaceQueue(),
      ],
      [
        f.retentionJump,
        () => s.retentionJumps < f.retentionJumpBudget && this.#idle() && this.#pending.length > 0,
        () => this.#retentionJump(),
      ],
    ];
    for (const [chance, allowed, make] of options) {
      threshold += chance;
      if (roll < threshold) return allowed() ? make() : undefined;
    }
    return undefined;
  }

  /** Normal progress: resume a parked call, submit ingress, start a poll; else wait or sweep. */
  #progress(): Action | undefined {
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
          this.#submitted.push(next.send);
          await next.send(this.#client);
        },
      });
    }
    // Dead letters are redriven as an operator would once the cause is fixed (here: the
    // crashes and timeouts that ran a message out of attempts).
    const letter = [...this.#deadLetters.values()].find((l) => !l.redriven);
    if (letter) actions.push(this.#redrive(letter));
    if (this.#backend.queue.deadLetters().length > 0) {
      actions.push({
        label: "redrive the queue's dead-letter queue",
        run: () => {
          this.stats.queueRedrives += this.#redriveQueueDeadLetters();
        },
      });
    }
    const counts = this.#backend.queue.counts();
    for (const process of this.#processes) {
      if (counts.receivable > 0 && process.active === 0) {
        actions.push({
          label: `p${process.id} poll`,
          run: () => this.#task(process, () => process.worker.poll()),
        });
      }
    }
    if (actions.length > 0) return actions[Math.floor(this.#rng() * actions.length)];
    if (this.#allProcesses().some((p) => p.active > 0)) return undefined;
    const visibleAt = this.#backend.queue.nextVisibleAt();
    if (counts.total > 0 && visibleAt !== undefined) {
      return { label: `wait until ${visibleAt}`, run: () => this.clock.advanceTo(visibleAt) };
    }
    if (this.#backend.store.outboxSize() > 0) return this.#sweep();
    return undefined;
  }

  /** Nothing in flight: no call parked, no task running, queue and outboxes empty. */
  #idle(): boolean {
    return (
      this.#gates.parked.length === 0 &&
      this.#allProcesses().every((p) => p.active === 0) &&
      this.#backend.queue.counts().total === 0 &&
      this.#backend.store.outboxSize() === 0
    );
  }

  #task(process: SimProcess, task: () => Promise<unknown>): void {
    process.run(task).catch((error: unknown) => {
      this.#monitor.violations.push(
        `p${process.id} task failed: ${error instanceof Error ? error.stack : String(error)}`,
      );
    });
  }

  #sweep(): Action {
    const sweeper = this.#sweeper;
    return {
      label: `p${sweeper.id} sweep`,
      run: () => {
        this.stats.sweeps++;
        this.#task(sweeper, async () => {
          const result = await sweeper.sweeper.sweep();
          this.stats.sweeperSent += result.sent;
        });
      },
    };
  }

  /**
   * The sweeper read an outbox: every item must still be held by an inbox message in the queue
   * (whose redelivery drains it anyway). An item whose inbox messages are all gone is an orphan.
   */
  #checkSweep(actorId: string, items: readonly OutboxItem[]): void {
    if (items.length === 0) return;
    const envelopes = items.reduce((n, item) => n + item.envelopes.length, 0);
    const queue = this.#backend.queue;
    const generation = this.#queueGeneration;
    const present = new Set(
      [...queue.messages(), ...queue.deadLetters()].map((m) => `${generation}:${m.seq}`),
    );
    for (const item of items) {
      const holders = this.#holders.get(`${item.actorId}#${item.seq}`) ?? [];
      if (!holders.some((place) => present.has(this.#whereNow(place)))) {
        this.#monitor.violations.push(
          `orphaned outbox: the sweeper found item ${item.seq} of ${actorId}, whose inbox messages (queue seqs ${holders.join(', ') || 'unknown'}) were all deleted from the queue: no worker will ever drain it (was the inbox acked before the drain?)`,
        );
      }
    }
    const raced = this.#processes.some((p) => p.alive && p.undrained.has(actorId));
    if (raced) this.stats.sweeperRaced += envelopes;
    else this.stats.sweeperRepairs += envelopes;
  }

  /**
   * Kills the process of a parked call. The boundary is chosen first, uniformly among those
   * with a parked call, so rare ones (an ack, an outbox delete) are struck as often as polls.
   */
  #crash(): Action {
    const parked = this.#gates.parked;
    const labels = [...new Set(parked.map((call) => call.label))];
    const label = labels[Math.floor(this.#rng() * labels.length)]!;
    const at = parked.filter((call) => call.label === label);
    const call = at[Math.floor(this.#rng() * at.length)]!;
    return {
      label: `crash p${call.processId} at ${call.label}`,
      run: () => {
        this.stats.crashes++;
        this.stats.crashesAt[call.label] = (this.stats.crashesAt[call.label] ?? 0) + 1;
        if (this.#sweeper.id === call.processId) {
          this.#sweeper.crash();
          this.#sweeper = this.#spawn('sweeper');
          return;
        }
        const index = this.#processes.findIndex((p) => p.id === call.processId);
        const process = this.#processes[index]!;
        if (process.undrained.size > 0) this.stats.drainWindowCrashes++;
        process.crash();
        this.#processes[index] = this.#spawn();
      },
    };
  }

  #restart(compact: boolean): Action {
    return {
      label: compact
        ? 'restart: every process dies, the journal is compacted, the backend reopens from it'
        : 'restart: every process dies, the backend reopens from its journal',
      run: async () => {
        if (compact) this.stats.compactionRestarts++;
        else this.stats.restarts++;
        await this.#killAll();
        this.#backend.close();
        const before = this.#journal.length;
        this.#open(compact);
        if (this.#journal.length < before) this.stats.compactions++;
      },
    };
  }

  /**
   * Every process dies; a new inbox queue takes the old one's messages in order (new sequence
   * numbers, from 1), and the backend reopens on it. The outbox items they held are held by
   * their copies now.
   */
  #replaceQueue(): Action {
    return {
      label: 'replace queue: every process dies, a new queue takes the messages of the old one',
      run: async () => {
        this.stats.queueReplacements++;
        await this.#killAll();
        // The old queue's dead letters move over too, as its other messages.
        this.#redriveQueueDeadLetters();
        const moved = this.#backend.queue.messages();
        const from = this.#queueGeneration;
        this.#backend.close();
        this.#queueGeneration++;
        this.#open(false);
        const queue = this.#backend.queue;
        // Fresh dedupe ids: the old queue may hold two copies under one (past its window).
        const generation = this.#queueGeneration;
        await queue.send(
          moved.map(({ group, dedupeId, body }, i) => ({
            group,
            dedupeId: `${dedupeId}~moved${generation}.${i}`,
            body,
          })),
        );
        const copies = queue.messages();
        moved.forEach((m, i) => {
          this.#movedTo.set(`${from}:${m.seq}`, `${generation}:${copies[i]!.seq}`);
        });
      },
    };
  }

  /** Moves the queue's dead letters back into it (last, in order, under new seqs). */
  #redriveQueueDeadLetters(): number {
    const queue = this.#backend.queue;
    const letters = queue.deadLetters();
    if (letters.length === 0) return 0;
    queue.redrive();
    const back = queue.messages().slice(-letters.length);
    const generation = this.#queueGeneration;
    letters.forEach((m, i) => {
      this.#movedTo.set(`${generation}:${m.seq}`, `${generation}:${back[i]!.seq}`);
    });
    return letters.length;
  }

  /** Where an inbox message (`<generation>:<seq>`) is now, after every move. */
  #whereNow(place: string): string {
    let now = place;
    for (let next = this.#movedTo.get(now); next !== undefined; next = this.#movedTo.get(now)) {
      now = next;
    }
    return now;
  }

  /** Redrives a dead letter once (again only if it is dead-lettered again). */
  #redrive(letter: { actorId: string; messageId: string; redriven: boolean }): Action {
    const { actorId, messageId } = letter;
    return {
      label: `redrive dead letter ${messageId} of ${actorId}`,
      run: async () => {
        this.stats.redrives++;
        letter.redriven = true;
        await redriveDeadLetter(this.#backend.store, this.#queue, actorId, messageId);
      },
    };
  }

  /** Every process dies at once, wherever its calls stand. */
  async #killAll(): Promise<void> {
    for (const process of this.#allProcesses()) {
      if (process.undrained.size > 0) this.stats.drainWindowCrashes++;
      process.crash();
    }
    await settle();
  }

  #jump(kind: 'timeout' | 'longPause', ms: number): Action {
    return {
      label: `${kind}: time jumps ${ms} ms`,
      run: () => {
        this.stats[kind === 'timeout' ? 'timeouts' : 'longPauses']++;
        this.clock.advance(ms);
      },
    };
  }

  /**
   * While idle, time jumps past the mark retention. Messages sent before it are forgotten as
   * redelivery candidates: SQS keeps a message no longer than the retention the marks follow.
   */
  #retentionJump(): Action {
    const ms = this.#markRetentionMs() + 1;
    return {
      label: `retention: time jumps ${ms} ms, past the mark retention`,
      run: () => {
        this.stats.retentionJumps++;
        this.clock.advance(ms);
        this.#history.length = 0;
      },
    };
  }

  #duplicate(): Action {
    const send = this.#submitted[Math.floor(this.#rng() * this.#submitted.length)]!;
    return {
      label: 'duplicate ingress (same idempotency key)',
      run: async () => {
        this.stats.duplicateIngress++;
        await send(this.#client);
      },
    };
  }

  #redeliver(): Action {
    const message = this.#history[Math.floor(this.#rng() * this.#history.length)]!;
    return {
      label: `redeliver ${message.dedupeId} under a fresh dedupe id`,
      run: async () => {
        this.stats.redeliveries++;
        await this.#backend.queue.send([
          { ...message, dedupeId: `${message.dedupeId}~${this.stats.redeliveries}` },
        ]);
      },
    };
  }

  #inboxName(): string {
    return this.#queueGeneration === 0 ? 'inbox' : `inbox-${this.#queueGeneration}`;
  }

  #visibilityMs(): number {
    return this.#options.visibilityTimeoutMs ?? 30_000;
  }

  #markRetentionMs(): number {
    return this.#options.markRetentionMs ?? DAY;
  }

  /** Opens the backend on the journal (compacted first if asked), with a fresh client and processes. */
  #open(compact: boolean): void {
    this.#backend = createEmbeddedBackend({
      journal: this.#journal,
      clock: this.clock,
      ...(this.#options.limits ? { limits: this.#options.limits } : {}),
      queue: {
        visibilityTimeoutMs: this.#visibilityMs(),
        maxReceives: this.#options.maxReceives ?? 1000,
        name: this.#inboxName(),
        identity: this.#inboxName(),
      },
      compactAfterEntries: compact ? 0 : Number.MAX_SAFE_INTEGER,
    });
    this.#backend.feed.subscribe((record) => {
      this.stats.commits++;
      this.#monitor.committed(record);
    });
    this.#queue = this.#recording(this.#backend.queue);
    this.#workerQueue = new FaultyQueue(this.#queue, {
      partialSend: this.#faults.partialSend,
      reorder: this.#faults.reorder,
      random: this.#rng,
      onFault: (fault) => {
        this.stats[fault === 'partialSend' ? 'partialSends' : 'reorders']++;
      },
    });
    this.#client = new Client({
      actors: this.#options.actors,
      store: this.#backend.store,
      queue: this.#queue,
      clock: this.clock,
    });
    this.#processes = Array.from({ length: this.#options.processes ?? 2 }, () => this.#spawn());
    this.#sweeper = this.#spawn('sweeper');
  }

  #spawn(role: 'worker' | 'sweeper' = 'worker'): SimProcess {
    return new SimProcess({
      id: this.#nextProcess++,
      gates: this.#gates,
      store: this.#backend.store,
      queue: this.#workerQueue,
      actors: this.#options.actors,
      clock: this.clock,
      random: seededRandom(Math.floor(this.#rng() * 2 ** 32)),
      batchSize: this.#options.batchSize ?? 10,
      visibilityTimeoutMs: this.#visibilityMs(),
      markRetentionMs: this.#markRetentionMs(),
      maxAttempts: this.#options.maxAttempts ?? 1000,
      recordPeers: this.#options.recordPeers ?? 1,
      sendBatchSize: () => 1 + Math.floor(this.#rng() * 10),
      ...(this.#options.wrapPorts && role === 'worker'
        ? { wrapPorts: this.#options.wrapPorts }
        : {}),
      onReceive: (body) => {
        this.stats.deliveries++;
        return this.#monitor.received(this.#backend.store, body);
      },
      onVersionConflict: () => {
        this.stats.versionConflicts++;
      },
      onCommit: (commit, batch) => {
        const id = commit.record.id;
        for (const removed of commit.deadLetters?.remove ?? []) {
          this.#deadLetters.delete(`${id}\u0000${removed}`);
        }
        for (const { messageId } of commit.deadLetters?.put ?? []) {
          this.stats.deadLettered++;
          const letter = { actorId: id, messageId, redriven: false };
          this.#deadLetters.set(`${id}\u0000${messageId}`, letter);
        }
        this.stats.marksMovedOut += commit.overflow?.length ?? 0;
        const places = batch.map((seq) => `${this.#queueGeneration}:${seq}`);
        for (const item of commit.outbox) this.#holders.set(`${item.actorId}#${item.seq}`, places);
      },
      ...(role === 'sweeper'
        ? {
            onOutboxRead: (actorId: string, items: readonly OutboxItem[]) =>
              this.#checkSweep(actorId, items),
          }
        : {}),
      onBatchSplit: () => {
        this.stats.batchSplits++;
      },
      onAbandoned: () => {
        this.stats.abandonedDrains++;
      },
    });
  }

  /** The queue, remembering every message sent so a fault can deliver it again. */
  #recording(queue: Queue): Queue {
    return {
      send: async (messages) => {
        this.#history.push(...messages);
        await queue.send(messages);
      },
      receive: (options) => queue.receive(options),
      ack: (receipts) => queue.ack(receipts),
      release: (receipts, delayMs) => queue.release(receipts, delayMs),
      ...(queue.identity ? { identity: () => queue.identity!() } : {}),
    };
  }

  #fail(message: string): SimulationError {
    return new SimulationError(message, this.seed, this.#trace);
  }
}
