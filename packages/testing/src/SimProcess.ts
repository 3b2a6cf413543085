import {
  type AnyActorDefinition,
  type Clock,
  type Commit,
  jsonLogger,
  type Queue,
  type QueueMessage,
  type Random,
  readConflict,
  type Store,
  Sweeper,
  silentLogger,
  Worker,
} from '@baton/core';
import { type Gates, SimulatedCrash } from './Gates.ts';

export interface SimProcessOptions {
  readonly id: number;
  readonly gates: Gates;
  readonly store: Store;
  readonly queue: Queue;
  readonly actors: readonly AnyActorDefinition[];
  readonly clock: Clock;
  readonly random: Random;
  readonly batchSize: number;
  readonly visibilityTimeoutMs: number;
  /** Called for every message the process receives, before its turn (invariant checks). */
  readonly onReceive?: (body: string) => Promise<void>;
  /** Called when a commit fails on its version condition. */
  readonly onVersionConflict?: () => void;
}

/**
 * One simulated worker process: a real {@link Worker} and {@link Sweeper} whose every store and
 * queue call parks at a gate before and after it runs. Crashing it fails its parked calls and
 * every later one, the way a killed Lambda container stops mid-turn; its warm cache dies with it.
 */
export class SimProcess {
  readonly id: number;
  readonly worker: Worker;
  readonly sweeper: Sweeper;
  /** Tasks (polls, sweeps) running now. */
  active = 0;
  #alive = true;
  readonly #gates: Gates;

  constructor(options: SimProcessOptions) {
    this.id = options.id;
    this.#gates = options.gates;
    const engine = {
      actors: options.actors,
      store: this.#gatedStore(options.store, options.onVersionConflict),
      queue: this.#gatedQueue(options.queue, options.onReceive),
      clock: options.clock,
      logger: process.env.BATON_SIM_LOG ? jsonLogger({ level: 'debug' }) : silentLogger,
      random: options.random,
      batchSize: options.batchSize,
      visibilityTimeoutMs: options.visibilityTimeoutMs,
    };
    this.worker = new Worker(engine);
    this.sweeper = new Sweeper(this.worker.engine, { minAgeMs: 0 });
  }

  get alive(): boolean {
    return this.#alive;
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

  #gatedStore(store: Store, onVersionConflict: (() => void) | undefined): Store {
    const commit = async (c: Commit) => {
      try {
        await store.commit(c);
      } catch (error) {
        if (readConflict(error)?.kind === 'version') onVersionConflict?.();
        throw error;
      }
    };
    return {
      limits: store.limits,
      load: this.#around('store.load', (id) => store.load(id)),
      commit: this.#around('store.commit', commit),
      readOutbox: this.#around('store.readOutbox', (id) => store.readOutbox(id)),
      deleteOutbox: this.#around('store.deleteOutbox', (id, seqs) => store.deleteOutbox(id, seqs)),
      listOutboxActors: this.#around('store.listOutboxActors', (t) => store.listOutboxActors(t)),
      readIdempotency: this.#around('store.readIdempotency', (key) => store.readIdempotency(key)),
    };
  }

  /** The queue, gated; `send` goes one message at a time so a crash can split a drain. */
  #gatedQueue(queue: Queue, onReceive: SimProcessOptions['onReceive']): Queue {
    return {
      send: async (messages: readonly QueueMessage[]) => {
        for (const message of messages) {
          await this.#gate('queue.send');
          await queue.send([message]);
        }
        await this.#gate('queue.send:done');
      },
      receive: async (options) => {
        const received = await this.#around('queue.receive', (o: typeof options) =>
          queue.receive(o),
        )(options);
        if (onReceive) for (const message of received) await onReceive(message.body);
        return received;
      },
      ack: this.#around('queue.ack', (receipts) => queue.ack(receipts)),
      release: this.#around('queue.release', (receipts, delayMs) =>
        queue.release(receipts, delayMs),
      ),
    };
  }
}
