import type { AnyActorDefinition } from '@baton/core';
import { type Queue, type QueueMessage, seededRandom } from '@baton/core/adapter';
import { Client } from '@baton/core/client';
import { createEmbeddedBackend, type EmbeddedBackend, MemoryJournal } from '@baton/embedded';
import type { DeadLetterBook } from './DeadLetterBook.ts';
import { FaultyQueue, type QueueFault } from './FaultyQueue.ts';
import { type Gates, settle } from './Gates.ts';
import type { InvariantMonitor } from './InvariantMonitor.ts';
import type { LateCopies } from './LateCopies.ts';
import type { OutboxHolders } from './OutboxHolders.ts';
import { processHooks } from './processHooks.ts';
import { SimProcess } from './SimProcess.ts';
import type { SimSettings } from './SimulationOptions.ts';
import type { SimulationStats } from './SimulationStats.ts';
import type { StrandedMessages } from './StrandedMessages.ts';
import type { VirtualClock } from './VirtualClock.ts';

/** The counter each fault of the workers' queue adds to. */
const FAULT_STATS = {
  partialSend: 'partialSends',
  reorder: 'reorders',
  unorderedSeq: 'unorderedSeqs',
} as const satisfies Record<QueueFault, keyof SimulationStats>;

/** What every part of a run shares: its settings, time and dice, the gates, and its books. */
export interface SimContext {
  readonly settings: SimSettings;
  readonly clock: VirtualClock;
  /** The run's seeded dice: every draw, in order, is part of the schedule. */
  readonly rng: () => number;
  readonly gates: Gates;
  readonly stats: SimulationStats;
  readonly monitor: InvariantMonitor;
  readonly holders: OutboxHolders;
  readonly deadLetters: DeadLetterBook;
  readonly lateCopies: LateCopies;
  readonly stranded: StrandedMessages;
  /**
   * The actors the run's operator paused and has not resumed yet (the `pause` fault), each with
   * whether faults may copy messages to it meanwhile (`Faults.pauseBusy`).
   */
  readonly paused: Map<string, { readonly busy: boolean }>;
  /**
   * The ingress messages an actor paused without `pauseBusy` parked, by message id: no fault
   * copies them, and their actor is resumed only while the inbox holds no copy of them (see
   * `Faults.pauseBusy`).
   */
  readonly parkedIngress: Set<string>;
}

/**
 * The simulated deployment: the embedded backend on its journal, the ingress client, and the
 * worker processes and sweeper process on them — all replaced when the backend reopens (a
 * restart, a new inbox queue). It also remembers every message sent, for redeliveries.
 */
export class SimCluster {
  readonly context: SimContext;
  readonly journal = new MemoryJournal();
  /**
   * Every message sent to the queue (ingress and drains) since the last time jump, and when,
   * oldest first: a fault may deliver one again ({@link redeliverable}).
   */
  readonly #sent: Array<{ readonly message: QueueMessage; readonly at: number }> = [];
  /** The dedupe ids the inbox queue accepted (a replaced queue's messages move to the new one). */
  readonly accepted = new Set<string>();
  #backend!: EmbeddedBackend;
  #queue!: Queue;
  #workerQueue!: FaultyQueue;
  #client!: Client;
  #processes: SimProcess[] = [];
  #sweeper!: SimProcess;
  #nextProcess = 1;
  /** Inbox queues replaced so far: the current one is `inbox` or `inbox-<n>`. */
  #generation = 0;
  #deployed = 0;
  /** The upgrade each process runs (0: the first code). */
  readonly #versions = new WeakMap<SimProcess, number>();

  constructor(context: SimContext) {
    this.context = context;
  }

  /** The backend as it is now. */
  get backend(): EmbeddedBackend {
    return this.#backend;
  }

  /** The backend's queue, recording into {@link history}: what ingress and redrives send to. */
  get queue(): Queue {
    return this.#queue;
  }

  get client(): Client {
    return this.#client;
  }

  /** The worker processes (the sweeper's aside). */
  get processes(): readonly SimProcess[] {
    return this.#processes;
  }

  get sweeper(): SimProcess {
    return this.#sweeper;
  }

  /** The inbox's own number of a message of `group` the workers received as `seq`. */
  inboxSeq(group: string, seq: string): string {
    return this.#workerQueue.queueSeq(group, seq);
  }

  /** The current inbox queue's generation: how many queues were replaced before it. */
  get generation(): number {
    return this.#generation;
  }

  /** The workers and the sweeper. */
  all(): SimProcess[] {
    return [...this.#processes, this.#sweeper];
  }

  /**
   * Opens the backend on the journal (compacted first if asked), on a new inbox queue if asked,
   * with a fresh client and processes.
   */
  open(compact: boolean, newQueue = false): void {
    const { settings, clock, stats, monitor, rng } = this.context;
    if (newQueue) this.#generation++;
    const inbox = this.#generation === 0 ? 'inbox' : `inbox-${this.#generation}`;
    this.#backend = createEmbeddedBackend({
      journal: this.journal,
      clock,
      ...(settings.limits ? { limits: settings.limits } : {}),
      queue: {
        visibilityTimeoutMs: settings.visibilityTimeoutMs,
        maxReceives: settings.maxReceives,
        name: inbox,
        identity: inbox,
      },
      compactAfterEntries: compact ? 0 : Number.MAX_SAFE_INTEGER,
    });
    this.#backend.feed.subscribe((record) => {
      stats.commits++;
      monitor.committed(record);
    });
    this.#queue = this.#recording(this.#backend.queue);
    this.#workerQueue = new FaultyQueue(this.#queue, {
      partialSend: settings.faults.partialSend,
      reorder: settings.faults.reorder,
      seqPerGroup: settings.sequenceNumbers === 'group',
      random: rng,
      onFault: (fault) => {
        stats[FAULT_STATS[fault]]++;
      },
    });
    this.#client = new Client({
      actors: this.actors,
      store: this.#backend.store,
      queue: this.#queue,
      clock,
      // The workload is the test's own code: it may send any message, internal ones included.
    }).asSystem();
    this.#processes = Array.from({ length: settings.processes }, () => this.#spawn());
    this.#sweeper = this.#spawn('sweeper');
  }

  /** Kills one process; a fresh one takes its place. */
  crash(processId: number): void {
    if (this.#sweeper.id === processId) {
      this.#sweeper.crash();
      this.#sweeper = this.#spawn('sweeper');
      return;
    }
    const index = this.#processes.findIndex((p) => p.id === processId);
    const process = this.#processes[index]!;
    if (process.undrained.size > 0) this.context.stats.drainWindowCrashes++;
    process.crash();
    this.#processes[index] = this.#spawn();
  }

  /** The actor definitions new processes and the client run: the last version deployed. */
  get actors(): readonly AnyActorDefinition[] {
    const { settings } = this.context;
    return this.#deployed === 0 ? settings.actors : settings.upgrades[this.#deployed - 1]!;
  }

  /** Upgrades deployed so far. */
  get deployed(): number {
    return this.#deployed;
  }

  /**
   * Deploys the next upgrade as a rolling deploy: the client (the door) and one worker run it at
   * once; the other processes keep the old code until {@link rollOne} replaces them one by one,
   * so old and new code run side by side meanwhile.
   */
  deploy(): void {
    this.#deployed++;
    this.#client = new Client({
      actors: this.actors,
      store: this.#backend.store,
      queue: this.#queue,
      clock: this.context.clock,
    }).asSystem();
    this.rollOne();
  }

  /** Whether a process still runs older code than the last deployed. */
  get rolling(): boolean {
    return this.all().some((p) => this.#versions.get(p) !== this.#deployed);
  }

  /** Replaces the next process still on older code (it dies) by one on the new code. */
  rollOne(): void {
    const index = this.#processes.findIndex((p) => this.#versions.get(p) !== this.#deployed);
    if (index >= 0) {
      const old = this.#processes[index]!;
      if (old.undrained.size > 0) this.context.stats.drainWindowCrashes++;
      old.crash();
      this.#processes[index] = this.#spawn();
    } else if (this.#versions.get(this.#sweeper) !== this.#deployed) {
      this.#sweeper.crash();
      this.#sweeper = this.#spawn('sweeper');
    }
  }

  /** Every process dies at once, wherever its calls stand. */
  async killAll(): Promise<void> {
    for (const process of this.all()) {
      if (process.undrained.size > 0) this.context.stats.drainWindowCrashes++;
      process.crash();
    }
    await settle();
  }

  /** Starts a task (a poll, a sweep) in `process`; its failure fails the run. */
  task(process: SimProcess, task: () => Promise<unknown>): void {
    process.run(task).catch((error: unknown) => {
      this.context.monitor.violations.push(
        `p${process.id} task failed: ${error instanceof Error ? error.stack : String(error)}`,
      );
    });
  }

  /**
   * Time jumped, days on, while nothing was in flight: the store deletes what expired (as
   * DynamoDB's TTL does), and the run forgets the messages sent before (a copy that comes
   * back days later comes from a dead-letter queue), but for the few copies {@link LateCopies}
   * may keep aside. The stranded messages waited across it.
   */
  timeJumped(): void {
    const { lateCopies, stranded, rng } = this.context;
    this.#backend.store.purgeExpired();
    const history = this.#sent.map((sent) => sent.message);
    lateCopies.keepAside(history, this.accepted, this.#backend.store.records(), rng);
    this.#sent.length = 0;
    stranded.jumped();
  }

  /**
   * The messages a fault may deliver again (SQS delivers at least once): those sent within half
   * the mark retention. The queue keeps a message no longer than the retention the marks follow
   * (`markRetentionMs`), so a copy of an older one — after a workflow slept for days, say —
   * would come from nowhere; a copy that does come back days later comes from a dead-letter
   * queue, as {@link LateCopies} and `StrandedMessages` model.
   */
  redeliverable(): QueueMessage[] {
    const since = this.#redeliverableSince();
    return this.#sent.filter((sent) => sent.at >= since).map((sent) => sent.message);
  }

  /** Whether any message is {@link redeliverable}: the newest is (they are kept oldest first). */
  hasRedeliverable(): boolean {
    return (this.#sent.at(-1)?.at ?? Number.NEGATIVE_INFINITY) >= this.#redeliverableSince();
  }

  #redeliverableSince(): number {
    const { clock, settings } = this.context;
    return clock.now() - settings.markRetentionMs / 2;
  }

  /**
   * Nothing in flight: no call parked, no task running, queue and outboxes empty — and the
   * queue's dead-letter queue too, as the operator redrives it soon after it fills: what it
   * holds may be a copy of a message applied or one never applied, and only the copies the run
   * keeps aside itself ({@link LateCopies}, `StrandedMessages`) wait across a time jump, known
   * for what they are.
   */
  idle(): boolean {
    const counts = this.#backend.queue.counts();
    return (
      this.context.gates.parked.length === 0 &&
      this.all().every((p) => p.active === 0) &&
      counts.total === 0 &&
      counts.deadLetters === 0 &&
      this.#backend.store.outboxSize() === 0
    );
  }

  #spawn(role: 'worker' | 'sweeper' = 'worker'): SimProcess {
    const { settings, clock, rng, gates } = this.context;
    const version = this.#deployed;
    const id = this.#nextProcess++;
    const process = new SimProcess({
      id,
      gates,
      store: this.#backend.store,
      queue: this.#workerQueue,
      actors: this.actors,
      effects: settings.effects,
      clock,
      random: seededRandom(Math.floor(rng() * 2 ** 32)),
      batchSize: settings.batchSize,
      visibilityTimeoutMs: settings.visibilityTimeoutMs,
      markRetentionMs: settings.markRetentionMs,
      maxAttempts: settings.maxAttempts,
      recordPeers: settings.recordPeers,
      workflowCacheSize: settings.workflowCacheSize(id),
      sendBatchSize: () => 1 + Math.floor(rng() * 10),
      ...(settings.wrapPorts && role === 'worker' ? { wrapPorts: settings.wrapPorts } : {}),
      ...processHooks(this, role, this.actors, () => version < this.#deployed),
    });
    this.#versions.set(process, this.#deployed);
    return process;
  }

  /**
   * The queue, remembering every message sent so a fault can deliver it again; those the
   * `strand` fault moves to the dead-letter queue at once are accepted but kept apart.
   */
  #recording(queue: Queue): Queue {
    return {
      send: async (messages) => {
        const { stranded, rng, stats, clock, monitor } = this.context;
        const before = stranded.waiting;
        const inbox = stranded.sift(messages, this.accepted, rng, {
          now: clock.now(),
          dedupeWindowMs: this.#backend.queue.dedupeWindowMs,
        });
        stats.stranded += stranded.waiting - before;
        // I2 for what the inbox did not take: its first delivery may come after its sender's
        // record expired.
        for (const m of messages.filter((m) => !inbox.includes(m))) {
          await monitor.received(this.#backend.store, m.body);
        }
        const at = clock.now();
        for (const message of inbox) this.#sent.push({ message, at });
        if (inbox.length > 0) await queue.send(inbox);
        for (const m of messages) this.accepted.add(m.dedupeId);
      },
      receive: (options) => queue.receive(options),
      ack: (receipts) => queue.ack(receipts),
      release: (receipts, delayMs) => queue.release(receipts, delayMs),
      ...(queue.identity ? { identity: () => queue.identity!() } : {}),
    };
  }
}
