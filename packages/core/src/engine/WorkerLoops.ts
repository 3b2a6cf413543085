import { toBatonError } from '../errors.ts';
import { Sweeper } from './Sweeper.ts';
import type { Worker } from './Worker.ts';

/** Options of {@link startWorkerLoops}. */
export interface WorkerLoopsOptions {
  /** Loops polling at once, each handling one batch at a time. @default 4 */
  readonly concurrency?: number;
  /**
   * Resolves when a message may be receivable (a send, a release, a timeout), or after a while:
   * a loop's sleep when a receive came back empty. A queue that long-polls can resolve at once.
   */
  readonly waitForWork: () => Promise<void>;
  /** Ends every pending `waitForWork`, so the loops see that they stop. */
  readonly wake: () => void;
  /**
   * How often the sweeper looks for undrained outboxes and, without a timer queue or pump, fires
   * due timers. @default 30 s
   */
  readonly sweepIntervalMs?: number;
}

/** Running worker loops: see {@link startWorkerLoops}. */
export interface WorkerLoops {
  /** Stops polling, finishes the batches in hand, and stops sweeping. */
  stop(): Promise<void>;
}

/**
 * The pull-style worker runner: `concurrency` loops that poll the worker's queue (sleeping in
 * `waitForWork` while it is empty) and a periodic sweeper. `startEmbedded` and `baton dev` run
 * their apps on it; a push-style host (the Lambda worker) calls `worker.process` instead. What
 * the turns do is observed with the engine's hooks (`onTurnStart`, `onCommit`, `onTurn`).
 *
 * @example
 * const worker = new Worker({ actors: [Account], store, queue, onTurn: (turn) => log(turn) });
 * const loops = startWorkerLoops(worker, { waitForWork: () => setTimeout(100), wake: () => {} });
 * // …
 * await loops.stop();
 */
export function startWorkerLoops(worker: Worker, options: WorkerLoopsOptions): WorkerLoops {
  const { engine } = worker;
  let running = true;
  const loop = async () => {
    while (running) {
      const received = await worker.poll().catch((error: unknown) => {
        engine.logger.error('worker poll failed', { error: toBatonError(error).message });
        return 0;
      });
      if (received === 0 && running) await options.waitForWork();
    }
  };
  const loops = Array.from({ length: options.concurrency ?? 4 }, loop);
  const sweeper = new Sweeper(engine);
  const sweeps = setInterval(() => {
    sweeper.sweep().catch((error: unknown) => {
      engine.logger.error('sweep failed', { error: toBatonError(error).message });
    });
  }, options.sweepIntervalMs ?? 30_000);
  return {
    async stop() {
      running = false;
      clearInterval(sweeps);
      options.wake();
      await Promise.all(loops);
    },
  };
}
