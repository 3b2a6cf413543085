import {
  type AnyActorDefinition,
  type AnyEffectDefinition,
  jsonLogger,
  silentLogger,
} from '@baton/core';
import {
  type Clock,
  type Commit,
  decodeEnvelope,
  type OutboxItem,
  type Queue,
  type QueueMessage,
  type Random,
  readConflict,
  type Store,
} from '@baton/core/adapter';
import { Sweeper, type TurnListener, Worker } from '@baton/core/engine';
import { type Gates, SimulatedCrash } from './Gates.ts';

/** The store and queue a process's worker and sweeper use. */
export interface SimPorts {
  readonly store: Store;
  readonly queue: Queue;
}

export interface SimProcessOptions {
  readonly id: number;
  readonly gates: Gates;
  readonly store: Store;
  readonly queue: Queue;
  readonly actors: readonly AnyActorDefinition[];
  readonly effects?: readonly AnyEffectDefinition[];
  readonly clock: Clock;
  readonly random: Random;
  readonly batchSize: number;
  readonly visibilityTimeoutMs: number;
  /** How long an idle sender's mark is kept (the engine's `markRetentionMs`). @default the engine's */
  readonly markRetentionMs?: number;
  /** Deliveries of a failing message before the engine dead-letters it (engines that have it). */
  readonly maxAttempts?: number;
  /** Peers a record lists before marks move out (the engine's `recordPeers`). */
  readonly recordPeers?: number;
  /** Suspended workflow runs kept warm (the engine's `workflowCacheSize`). @default the engine's */
  readonly workflowCacheSize?: number;
  /**
   * How many messages the next `SendMessageBatch` call of a send takes (1–10); each call is
   * an I/O boundary of its own. @default 1: one message per call
   */
  readonly sendBatchSize?: () => number;
  /**
   * Wraps the gated ports before the worker and sweeper get them: to add behaviour of your own,
   * or to check that a broken engine is caught (a mutant). Calls the wrapper makes are gated.
   */
  readonly wrapPorts?: (ports: SimPorts, processId: number) => SimPorts;
  /** Called for every message the process receives, before its turn (invariant checks). */
  readonly onReceive?: (body: string) => Promise<void>;
  /** Called when a commit fails on its version condition. */
  readonly onVersionConflict?: () => void;
  /**
   * Called after each successful commit, with the queue sequence numbers of the inbox messages
   * of the committing actor that the process holds (its current batch): until one of them is
   * deleted from the queue, a redelivery will drain the commit's outbox.
   */
  readonly onCommit?: (commit: Commit, batch: readonly string[]) => void;
  /** Called with the outbox items each `store.readOutbox` returned, and the sends each loaded record holds. */
  readonly onOutboxRead?: (actorId: string, items: readonly OutboxItem[]) => void;
  /** Called when one task committed two or more times for one actor (a split batch). */
  readonly onBatchSplit?: (actorId: string) => void;
  /** The engine's `onTurn`: what each turn did. */
  readonly onTurn?: TurnListener;
  /** Called when a task ended while the process still held commits it had not drained or acked. */
  readonly onAbandoned?: (actorIds: readonly string[]) => void;
  /**
   * Called when the process acked the messages of commits whose drain failed (a send refused):
   * their sends are left to the actor's next turn or the sweeper.
   */
  readonly onLeftToSweeper?: (actorIds: readonly string[]) => void;
}

/**
 * One simulated worker process: a real {@link Worker} and {@link Sweeper} whose every store and
 * queue call parks at a gate before and after it runs. Crashing it fails its parked calls and
 * every later one, the way a killed Lambda container stops mid-turn; its warm cache dies with it.
 *
 * The process also knows which actors it has committed outbox items for and not yet drained
 * ({@link undrained}): a crash while that set is not empty struck between a commit and its drain.
 */
export class SimProcess {
  readonly id: number;
  readonly worker: Worker;
  readonly sweeper: Sweeper;
  /** Tasks (polls, sweeps) running now. */
  active = 0;
  #alive = true;
  readonly #gates: Gates;
  readonly #options: SimProcessOptions;
  readonly #undrained = new Set<string>();
  /** Actors whose sends a send of this process failed to take (not a crash): their drain failed. */
  readonly #failedDrains = new Set<string>();
  /** The current batch: group → the queue sequence numbers received. */
  #batch = new Map<string, string[]>();
  readonly #receiptGroups = new Map<string, string>();
  /** Successful commits per actor in the current task. */
  readonly #commits = new Map<string, number>();

  constructor(options: SimProcessOptions) {
    this.id = options.id;
    this.#gates = options.gates;
    this.#options = options;
    const gated: SimPorts = {
      store: this.#gatedStore(options.store),
      queue: this.#gatedQueue(options.queue),
    };
    const ports = options.wrapPorts ? options.wrapPorts(gated, options.id) : gated;
    const engine = {
      actors: options.actors,
      ...(options.effects ? { effects: options.effects } : {}),
      store: ports.store,
      queue: ports.queue,
      clock: options.clock,
      logger: process.env.BATON_SIM_LOG ? jsonLogger({ level: 'debug' }) : silentLogger,
      random: options.random,
      batchSize: options.batchSize,
      visibilityTimeoutMs: options.visibilityTimeoutMs,
      // A run shortens the mark retention alone, to see marks expire within it; it sends no
      // client's copy past a life's record (see LateCopies).
      ...(options.markRetentionMs === undefined
        ? {}
        : { markRetentionMs: options.markRetentionMs, allowShortMarkRetention: true }),
      ...(options.maxAttempts === undefined ? {} : { maxAttempts: options.maxAttempts }),
      ...(options.recordPeers === undefined ? {} : { recordPeers: options.recordPeers }),
      ...(options.workflowCacheSize === undefined
        ? {}
        : { workflowCacheSize: options.workflowCacheSize }),
      ...(options.onTurn ? { onTurn: options.onTurn } : {}),
    };
    this.worker = new Worker(engine);
    this.sweeper = new Sweeper(this.worker.engine, { minAgeMs: 0 });
  }

  get alive(): boolean {
    return this.#alive;
  }

  /** Actors this process committed outbox items for and has neither drained nor acked. */
  get undrained(): ReadonlySet<string> {
    return this.#undrained;
  }

  /** Kills the process: its parked calls fail now, every later call fails at once. */
  crash(): void {
    this.#alive = false;
    for (const call of this.#gates.takeAll(this.id)) call.crash(new SimulatedCrash(this.id));
  }

  /** Runs `task` as one of this process's tasks; a crash ends it quietly. */
  async run(task: () => Promise<unknown>): Promise<void> {
    this.active++;
    try {
      await task();
    } catch (error) {
      if (this.#alive || !(error instanceof SimulatedCrash)) throw error;
    } finally {
      this.active--;
      if (this.active === 0) this.#endTask();
    }
  }

  #endTask(): void {
    for (const [actorId, n] of this.#commits) if (n > 1) this.#options.onBatchSplit?.(actorId);
    this.#commits.clear();
    this.#failedDrains.clear();
    if (this.#alive && this.#undrained.size > 0) {
      this.#options.onAbandoned?.([...this.#undrained]);
      this.#undrained.clear();
    }
  }

  async #gate(label: string): Promise<void> {
    if (!this.#alive) throw new SimulatedCrash(this.id);
    await this.#gates.park(this.id, label);
    if (!this.#alive) throw new SimulatedCrash(this.id);
  }

  /** `fn` with a gate before and after each call. */
  #around<A extends unknown[], R>(label: string, fn: (...args: A) => Promise<R>) {
    return async (...args: A): Promise<R> => {
      await this.#gate(label);
      const result = await fn(...args);
      await this.#gate(`${label}:done`);
      return result;
    };
  }

  /**
   * The store with every call gated (whatever methods the port has), and commits, outbox reads
   * and outbox deletes observed.
   */
  #gatedStore(store: Store): Store {
    const options = this.#options;
    const observed: Record<string, (...args: never[]) => Promise<unknown>> = {
      commit: async (c: Commit) => {
        try {
          await store.commit(c);
        } catch (error) {
          if (readConflict(error)?.kind === 'version') options.onVersionConflict?.();
          throw error;
        }
        const actorId = c.record.id;
        this.#commits.set(actorId, (this.#commits.get(actorId) ?? 0) + 1);
        if (c.outbox.length > 0 || c.record.outbox) this.#undrained.add(actorId);
        options.onCommit?.(c, this.#batch.get(actorId) ?? []);
      },
      readOutbox: async (actorId: string) => {
        const items = await store.readOutbox(actorId);
        options.onOutboxRead?.(actorId, items);
        return items;
      },
      // The sends a record holds are part of its actor's outbox as well.
      load: async (actorId: string) => {
        const record = await store.load(actorId);
        if (record?.outbox) options.onOutboxRead?.(actorId, record.outbox);
        return record;
      },
      deleteOutbox: async (actorId: string, seqs: readonly number[], life: string | undefined) => {
        await store.deleteOutbox(actorId, seqs, life);
        this.#undrained.delete(actorId);
      },
      heldDrained: async (actorId: string, ver: number, life: string | undefined) => {
        await store.heldDrained?.(actorId, ver, life);
        this.#undrained.delete(actorId);
      },
    };
    // The dead letters' count is read for a log line only: a crash there proves nothing, and
    // gating it would move every schedule a seed pins.
    return gatedObject(store, 'store', (label, fn) => this.#around(label, fn), observed, [
      'watchOutcomes',
      'countDeadLetters',
    ]);
  }

  /**
   * The queue, gated. A send goes out in `SendMessageBatch`-sized calls, each an I/O boundary,
   * so a crash can split a drain; after a failed call no later call is made (as on SQS).
   */
  #gatedQueue(queue: Queue): Queue {
    const options = this.#options;
    const observed: Record<string, (...args: never[]) => Promise<unknown>> = {
      receive: async (o: Parameters<Queue['receive']>[0]) => {
        const received = await queue.receive(o);
        this.#batch = new Map();
        for (const m of received) {
          this.#batch.set(m.group, [...(this.#batch.get(m.group) ?? []), m.seq]);
          this.#receiptGroups.set(m.receipt, m.group);
        }
        return received;
      },
      ack: async (receipts: readonly string[]) => {
        // An ack declares the turn done: what the process has not drained by now, it never will.
        // Only after a failed drain is that the worker's design (the next turn or the sweeper
        // sends it); else the orphan check catches it.
        const left: string[] = [];
        for (const receipt of receipts) {
          const group = this.#receiptGroups.get(receipt);
          if (group === undefined || !this.#undrained.delete(group)) continue;
          if (this.#failedDrains.delete(group)) left.push(group);
        }
        if (left.length > 0) options.onLeftToSweeper?.(left);
        await queue.ack(receipts);
      },
    };
    const gated = gatedObject(queue, 'queue', (label, fn) => this.#around(label, fn), observed);
    return new Proxy(gated, {
      get: (target, prop, receiver) => {
        if (prop === 'send')
          return (messages: readonly QueueMessage[]) => this.#send(queue, messages);
        if (prop === 'receive') {
          return async (o: Parameters<Queue['receive']>[0]) => {
            const received = await target.receive(o);
            if (options.onReceive) for (const m of received) await options.onReceive(m.body);
            return received;
          };
        }
        return Reflect.get(target, prop, receiver);
      },
    });
  }

  async #send(queue: Queue, messages: readonly QueueMessage[]): Promise<void> {
    for (let i = 0; i < messages.length; ) {
      const size = Math.min(10, Math.max(1, this.#options.sendBatchSize?.() ?? 1));
      const chunk = messages.slice(i, i + size);
      i += size;
      await this.#gate('queue.send');
      try {
        await queue.send(chunk);
      } catch (error) {
        if (!(error instanceof SimulatedCrash)) {
          for (const m of messages) this.#failedDrains.add(decodeEnvelope(m.body)?.from ?? '');
        }
        throw error;
      }
    }
    await this.#gate('queue.send:done');
  }
}

/**
 * A view of `target` whose methods are gated by `around` under `<prefix>.<name>`, running the
 * `observed` replacement where one is given. Methods in `ungated` pass through as they are.
 */
function gatedObject<T extends object>(
  target: T,
  prefix: string,
  around: (
    label: string,
    fn: (...args: never[]) => Promise<unknown>,
  ) => (...args: never[]) => Promise<unknown>,
  observed: Record<string, (...args: never[]) => Promise<unknown>>,
  ungated: readonly string[] = [],
): T {
  const wrapped = new Map<string, unknown>();
  return new Proxy(target, {
    get: (t, prop) => {
      const value: unknown = Reflect.get(t, prop, t);
      if (typeof prop !== 'string' || typeof value !== 'function') return value;
      if (ungated.includes(prop)) return value.bind(t);
      let fn = wrapped.get(prop);
      if (!fn) {
        const call =
          observed[prop] ??
          ((...args: never[]) => (value as (...a: never[]) => Promise<unknown>).apply(t, args));
        fn = around(`${prefix}.${prop}`, call);
        wrapped.set(prop, fn);
      }
      return fn;
    },
  });
}
