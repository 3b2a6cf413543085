import {
  type ActorRecord,
  type ActorRef,
  type AnyActorDefinition,
  Client,
  type MessageName,
  type Outcome,
  type PayloadOf,
  type Queue,
  type QueueMessage,
  Registry,
  type StateOf,
  type StoreLimits,
  seededRandom,
} from '@baton/core';
import { createEmbeddedBackend, type EmbeddedBackend, MemoryJournal } from '@baton/embedded';
import { defaultFaults, type Faults } from './faults.ts';
import { Gates, settle } from './Gates.ts';
import { InvariantMonitor } from './InvariantMonitor.ts';
import { SimProcess } from './SimProcess.ts';
import { emptyStats, type SimulationStats } from './SimulationStats.ts';
import { VirtualClock } from './VirtualClock.ts';

export interface SimulationOptions {
  readonly actors: readonly AnyActorDefinition[];
  /** The seed: the same seed and the same sends give the same run, step for step. */
  readonly seed: number;
  /** Worker processes polling the inbox. @default 2 */
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
  /** Backend limits; DynamoDB's by default. */
  readonly limits?: Partial<StoreLimits>;
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
 * A deterministic simulation of Baton on the embedded backend: real worker processes whose I/O
 * calls interleave in an order chosen by a seed, on virtual time, with crashes at every I/O
 * boundary, restarts from the journal, expired visibility timeouts, duplicate ingress and
 * redelivered messages. `run()` drives it until nothing is left to do.
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
  #backend!: EmbeddedBackend;
  #queue!: Queue;
  #client!: Client;
  #processes: SimProcess[] = [];
  #nextProcess = 1;
  #nextKey = 1;

  constructor(options: SimulationOptions) {
    this.seed = options.seed;
    this.#options = options;
    this.#faults = { ...defaultFaults, ...options.faults };
    this.#registry = new Registry(options.actors);
    this.#rng = seededRandom(options.seed);
    this.#open();
  }

  /**
   * Schedules an ingress send; the run decides when it reaches the queue. Validates at once.
   * @returns the message id (its idempotency key)
   */
  send<Def extends AnyActorDefinition, Name extends MessageName<Def>>(
    to: ActorRef<Def>,
    name: Name,
    payload: PayloadOf<Def, Name>,
    options: { idempotencyKey?: string } = {},
  ): string {
    this.#registry.resolve(to.id, name, payload);
    const idempotencyKey = options.idempotencyKey ?? `sim-${this.seed}-${this.#nextKey++}`;
    const send = (client: Client) => client.send(to, name, payload, { idempotencyKey });
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
    if (this.#processes.some((p) => p.active > 0))
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

  /** The stored outcome of an ingress message. */
  async outcome(messageId: string): Promise<Outcome | undefined> {
    return this.#client.outcome(messageId);
  }

  /** The backend as it is now (it is replaced on a simulated restart). */
  get backend(): EmbeddedBackend {
    return this.#backend;
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
    const options: Array<[number, boolean, () => Action]> = [
      [f.crash, s.crashes < f.crashBudget && this.#gates.parked.length > 0, () => this.#crash()],
      [f.restart, s.restarts < f.restartBudget && busy, () => this.#restart()],
      [f.timeout, s.timeouts < 10 && busy, () => this.#jump('timeout', this.#visibilityMs() + 1)],
      [f.longPause, s.longPauses < 3 && busy, () => this.#jump('longPause', 6 * 60_000)],
      [
        f.duplicateIngress,
        s.duplicateIngress < 10 && this.#submitted.length > 0,
        () => this.#duplicate(),
      ],
      [f.redeliver, s.redeliveries < 10 && this.#history.length > 0, () => this.#redeliver()],
    ];
    for (const [chance, allowed, make] of options) {
      threshold += chance;
      if (roll < threshold) return allowed ? make() : undefined;
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
    if (this.#processes.some((p) => p.active > 0)) return undefined;
    const visibleAt = this.#backend.queue.nextVisibleAt();
    if (counts.total > 0 && visibleAt !== undefined) {
      return { label: `wait until ${visibleAt}`, run: () => this.clock.advanceTo(visibleAt) };
    }
    if (this.#backend.store.outboxSize() > 0) {
      const process = this.#processes[0]!;
      return {
        label: `p${process.id} sweep`,
        run: () => this.#task(process, () => process.sweeper.sweep()),
      };
    }
    return undefined;
  }

  #task(process: SimProcess, task: () => Promise<unknown>): void {
    process.run(task).catch((error: unknown) => {
      this.#monitor.violations.push(
        `p${process.id} task failed: ${error instanceof Error ? error.stack : String(error)}`,
      );
    });
  }

  #crash(): Action {
    const call = this.#gates.parked[Math.floor(this.#rng() * this.#gates.parked.length)]!;
    return {
      label: `crash p${call.processId} at ${call.label}`,
      run: () => {
        this.stats.crashes++;
        this.stats.crashesAt[call.label] = (this.stats.crashesAt[call.label] ?? 0) + 1;
        const index = this.#processes.findIndex((p) => p.id === call.processId);
        this.#processes[index]!.crash();
        this.#processes[index] = this.#spawn();
      },
    };
  }

  #restart(): Action {
    return {
      label: 'restart: every process dies, the backend reopens from its journal',
      run: async () => {
        this.stats.restarts++;
        for (const process of this.#processes) process.crash();
        await settle();
        this.#backend.close();
        this.#open();
      },
    };
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

  #visibilityMs(): number {
    return this.#options.visibilityTimeoutMs ?? 30_000;
  }

  /** Opens the backend on the journal, with a fresh client and fresh processes. */
  #open(): void {
    this.#backend = createEmbeddedBackend({
      journal: this.#journal,
      clock: this.clock,
      ...(this.#options.limits ? { limits: this.#options.limits } : {}),
      queue: {
        visibilityTimeoutMs: this.#visibilityMs(),
        maxReceives: this.#options.maxReceives ?? 1000,
      },
      compactAfterEntries: Number.MAX_SAFE_INTEGER,
    });
    this.#backend.feed.subscribe((record) => {
      this.stats.commits++;
      this.#monitor.committed(record);
    });
    this.#queue = this.#recording(this.#backend.queue);
    this.#client = new Client({
      actors: this.#options.actors,
      store: this.#backend.store,
      queue: this.#queue,
      clock: this.clock,
    });
    this.#processes = Array.from({ length: this.#options.processes ?? 2 }, () => this.#spawn());
  }

  #spawn(): SimProcess {
    return new SimProcess({
      id: this.#nextProcess++,
      gates: this.#gates,
      store: this.#backend.store,
      queue: this.#queue,
      actors: this.#options.actors,
      clock: this.clock,
      random: seededRandom(Math.floor(this.#rng() * 2 ** 32)),
      batchSize: this.#options.batchSize ?? 10,
      visibilityTimeoutMs: this.#visibilityMs(),
      onReceive: (body) => {
        this.stats.deliveries++;
        return this.#monitor.received(this.#backend.store, body);
      },
      onVersionConflict: () => {
        this.stats.versionConflicts++;
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
    };
  }

  #fail(message: string): SimulationError {
    return new SimulationError(message, this.seed, this.#trace);
  }
}
