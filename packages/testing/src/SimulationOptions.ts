/** The options of a simulation run, and their defaults. */
import type { AnyActorDefinition, AnyEffectDefinition, AnyWorkflowDefinition } from '@baton/core';
import type { StoreLimits } from '@baton/core/adapter';
import { defaultFaults, type Faults } from './faults.ts';
import type { SimPorts } from './SimProcess.ts';

const DAY = 24 * 60 * 60 * 1000;

export interface SimulationOptions {
  readonly actors: readonly AnyActorDefinition[];
  /** Durable workflows: their actor types join `actors`, as `defineApp`'s do. */
  readonly workflows?: readonly AnyWorkflowDefinition[];
  /** The effects handlers ask for; the simulated workers run them. */
  readonly effects?: readonly AnyEffectDefinition[];
  /**
   * Later versions of `actors` (e.g. with a raised `version` and its `migrate`), deployed in this
   * order by the `deploy` fault, each as a rolling deploy: old and new code side by side until
   * every process runs the next version. Each lists the actors of its version; `workflows` run
   * on across it as the version before ran them, but for those whose new version's `.actor` it
   * lists.
   */
  readonly upgrades?: ReadonlyArray<readonly AnyActorDefinition[]>;
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
  /**
   * Receives before the dead-letter queue; above `maxAttempts` (a worker refuses a queue that
   * would dead-letter first). @default 101 (crashes alone never dead-letter)
   */
  readonly maxReceives?: number;
  /**
   * Deliveries of a failing message before the engine ends it as dead-lettered (the engine's
   * `maxAttempts`; crash redeliveries count too). @default 100: above what the fault budgets can
   * cause (crashes alone never dead-letter), and low enough that a handler that always throws
   * fails the run in well under a second, not after a test runner's timeout
   */
  readonly maxAttempts?: number;
  /**
   * Redrives of one message's dead letter by the simulated operator, who redrives the engine's
   * dead letters as if the cause were fixed. A letter of the message kept again after the last
   * fails the run, naming the actor, the handler, the message and the letter's error: a handler
   * that fails it the same way each time (a plain `Error` it keeps throwing) would be redriven
   * forever. `0`: no redrives — a message that runs out of `maxAttempts` stays DEAD_LETTERED
   * and the run ends quiet with its letter kept, for `sim.outcome` to show. @default 3
   */
  readonly deadLetterRedrives?: number;
  /**
   * Peers an actor's record lists before marks move out into items of their own (the engine's
   * `recordPeers`). @default 1, so that marks move out and are read back in most runs
   */
  readonly recordPeers?: number;
  /** Backend limits; DynamoDB's by default. Small ones make turns split their batches. */
  readonly limits?: Partial<StoreLimits>;
  /**
   * How the inbox numbers the messages workers receive: `'queue'`, one counter for the queue;
   * `'group'`, increasing within each message group only, unordered across groups — all SQS
   * promises, and what a FIFO queue in high-throughput mode gives. @default 'queue'
   */
  readonly sequenceNumbers?: 'queue' | 'group';
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
  /**
   * Suspended workflow runs each worker process keeps warm (the engine's `workflowCacheSize`).
   * By default the odd-numbered processes keep none — the first worker is one, so a run with
   * one process replays every turn — and turns both carry on warm runs and replay histories
   * cold, as a restarted or another Lambda does: a run that is not deterministic (it branches on
   * `Math.random()` or `Date.now()`) pauses NON_DETERMINISTIC in a simulation, not first in
   * production. @default 0 in odd-numbered processes, 200 in even-numbered ones
   */
  readonly workflowCacheSize?: number;
}

/** {@link SimulationOptions} with every default filled in (the seed aside). */
export interface SimSettings {
  readonly actors: readonly AnyActorDefinition[];
  readonly effects: readonly AnyEffectDefinition[];
  readonly upgrades: ReadonlyArray<readonly AnyActorDefinition[]>;
  readonly processes: number;
  readonly faults: Faults;
  readonly maxSteps: number;
  readonly batchSize: number;
  readonly visibilityTimeoutMs: number;
  readonly maxReceives: number;
  readonly maxAttempts: number;
  readonly deadLetterRedrives: number;
  readonly recordPeers: number;
  readonly limits: Partial<StoreLimits> | undefined;
  readonly sequenceNumbers: 'queue' | 'group';
  readonly markRetentionMs: number;
  readonly wrapPorts: SimulationOptions['wrapPorts'];
  /** The cache size of process `id`. */
  readonly workflowCacheSize: (id: number) => number;
}

export function resolveOptions(options: SimulationOptions): SimSettings {
  const workflows = (options.workflows ?? []).map((w) => w.actor);
  return {
    // A `defineApp` app lists its workflows' actor types among its actors already.
    actors: [...options.actors, ...workflows.filter((a) => !options.actors.includes(a))],
    effects: options.effects ?? [],
    upgrades: withWorkflows(options.upgrades ?? [], workflows),
    processes: options.processes ?? 2,
    faults: { ...defaultFaults, ...options.faults },
    maxSteps: options.maxSteps ?? 200_000,
    batchSize: options.batchSize ?? 10,
    visibilityTimeoutMs: options.visibilityTimeoutMs ?? 30_000,
    maxReceives: options.maxReceives ?? 101,
    maxAttempts: options.maxAttempts ?? 100,
    deadLetterRedrives: options.deadLetterRedrives ?? 3,
    recordPeers: options.recordPeers ?? 1,
    limits: options.limits,
    sequenceNumbers: options.sequenceNumbers ?? 'queue',
    markRetentionMs: options.markRetentionMs ?? DAY,
    wrapPorts: options.wrapPorts,
    workflowCacheSize: (id) => options.workflowCacheSize ?? (id % 2 === 1 ? 0 : 200),
  };
}

/**
 * Each of `upgrades` with the `workflows` it does not list, as the version before ran them: a
 * workflow's actor an upgrade lists (its new version's `.actor`) is the one run from then on.
 */
function withWorkflows(
  upgrades: ReadonlyArray<readonly AnyActorDefinition[]>,
  workflows: readonly AnyActorDefinition[],
): ReadonlyArray<readonly AnyActorDefinition[]> {
  let running = workflows;
  return upgrades.map((upgrade) => {
    const listed = new Map(upgrade.map((definition) => [definition.name, definition]));
    const kept = running.filter((workflow) => !listed.has(workflow.name));
    running = running.map((workflow) => listed.get(workflow.name) ?? workflow);
    return [...upgrade, ...kept];
  });
}
