/**
 * How often each fault strikes. Most are the chance, per scheduling step, that the fault is
 * chosen instead of normal progress; `partialSend` and `reorder` are chances per queue send.
 * Budgets cap the total so every schedule reaches quiet. Set a rate to 0 to switch a fault off.
 */
export interface Faults {
  /** Kill a process that has a call parked at an I/O boundary. @default 0.03 */
  readonly crash: number;
  /** Most crashes in one run. @default 20 */
  readonly crashBudget: number;
  /** Kill every process and reopen the backend from its journal. @default 0.002 */
  readonly restart: number;
  /** Most restarts in one run (compacting restarts not included). @default 2 */
  readonly restartBudget: number;
  /** Jump time past the visibility timeout, so in-flight messages go to another worker. @default 0.01 */
  readonly timeout: number;
  /** Jump time past the queue's dedupe window. @default 0.002 */
  readonly longPause: number;
  /** Send an earlier ingress message again with the same idempotency key. @default 0.01 */
  readonly duplicateIngress: number;
  /** Deliver an earlier envelope again under a fresh dedupe id (SQS at-least-once). @default 0.01 */
  readonly redeliver: number;
  /**
   * Start the sweeper while workers run, so it races their drains (it also runs whenever
   * everything else is quiet and an outbox is not empty). @default 0.03
   */
  readonly sweep: number;
  /** Most sweeper runs started by `sweep` in one run. @default 30 */
  readonly sweepBudget: number;
  /**
   * Per queue send (one `SendMessageBatch` call) of two or more entries: one entry fails while
   * the others, a later one among them, are accepted, and the call throws UNAVAILABLE — SQS
   * reports a batch per entry. @default 0.05
   */
  readonly partialSend: number;
  /**
   * Per queue send with entries for two or more groups: the queue takes the entries in another
   * order across groups (each group's own order kept), as SQS FIFO may. @default 0.1
   */
  readonly reorder: number;
  /** Kill every process and reopen the backend from its journal, compacted first. @default 0.002 */
  readonly compaction: number;
  /** Most compacting restarts in one run. @default 1 */
  readonly compactionBudget: number;
  /**
   * While nothing is in flight (queue and outboxes empty, no task running) and ingress is still
   * to come, jump time past twice the per-sender mark retention, so the next turns prune every
   * mark, and the records of actors halted before it expire and are deleted: their next message
   * starts a new life.
   * @default 0.05
   */
  readonly retentionJump: number;
  /** Most retention jumps in one run. @default 2 */
  readonly retentionJumpBudget: number;
  /**
   * The chance, at each retention jump (and `Simulation.idle`), that copies of messages sent
   * before it are kept aside, as the queue's dead-letter queue keeps a copy committed and never
   * acknowledged, and redriven after it (one at a time, as progress) — after marks were pruned,
   * perhaps after their sender began a new life. Each must be skipped or kept as an engine dead
   * letter, never applied again; the run's operator never redrives such a letter.
   * @default 0.5
   */
  readonly lateRedrive: number;
  /** Most copies kept aside at once. @default 3 */
  readonly lateRedriveBudget: number;
  /**
   * Per actor message a drain sends to the inbox: the queue moves it to its dead-letter queue
   * before any worker applies it (as SQS does with one received `maxReceives` times), where it
   * waits until the run redrives it — one at a time, as progress, once it waited across a time
   * jump; those left when all else is done wait across an aging jump first (within
   * `agingJumpBudget`, whatever the `agingJump` rate). SQS FIFO restarts a message's retention
   * on each move, so it may come back after its sender forgot the channel and sent on, or after
   * its receiver forgot the sender's mark: it must be applied once all the same (kept as a dead
   * letter too old to tell, it is one the run's operator redrives, knowing it was never
   * applied). Off by default: a stranded message comes after those sent behind it, the FIFO
   * exception of any redrive. @default 0
   */
  readonly strand: number;
  /** Most messages stranded in one run. @default 2 */
  readonly strandBudget: number;
  /**
   * While nothing is in flight and ingress or a stranded message is still to come, jump time by
   * a span between a quarter and twice the per-sender mark retention: past a sender's forgetting
   * of an idle channel (half of it), a receiver's pruning of an idle sender's mark (all of it),
   * or both — the ages at which a message redriven from the dead-letter queue meets each rule.
   * (A `retentionJump` goes past all of them at once.) Off by default. @default 0
   */
  readonly agingJump: number;
  /** Most aging jumps in one run. @default 3 */
  readonly agingJumpBudget: number;
  /**
   * Replace the inbox queue: every process dies, a new queue (another identity, sequence
   * numbers from 1 again) takes the old one's messages in order, and the backend reopens on it
   * — as an operator who recreates a queue and moves its messages over. @default 0.002
   */
  readonly replaceQueue: number;
  /** Most queue replacements in one run. @default 1 */
  readonly replaceQueueBudget: number;
  /**
   * Deploy the next of the simulation's `upgrades` (new versions of the actor definitions) as a
   * rolling deploy: the client and one worker run the new code at once, the other processes die
   * mid-call one by one and are replaced, so old and new code run side by side meanwhile (what
   * the old code cannot read waits, is dead-lettered and redriven).
   * @default 0.005
   */
  readonly deploy: number;
  /**
   * The chance, at each step of a rolling deploy, that one more process is replaced by one on
   * the new code: low, so that old code meets what only new code knows (a message name, an
   * actor type) for many turns before the deploy ends. @default 0.02
   */
  readonly roll: number;
  /**
   * The chance, at each step of progress while a message is failing at an actor's head, that
   * the run's operator ends it (`endFailingMessage`) rather than wait for its attempts to run
   * out: its next delivery keeps it as a dead letter without running its handler, and the run
   * redrives that letter as any other. Off by default. @default 0
   */
  readonly endFailing: number;
  /**
   * Pause an actor that has a record, chosen at random (`pauseActor`), while work goes on: each
   * message it admits is parked until the run's operator resumes it (`resumeActor`) — at each
   * step of progress now and then, and always once nothing else is left to do, so every run
   * ends with its actors resumed and their parked messages applied. A pause refused for a
   * message failing at the actor's head is forced half the time. Off by default. @default 0
   */
  readonly pause: number;
  /** Most pauses in one run. @default 3 */
  readonly pauseBudget: number;
  /**
   * Per pause: the chance that it may strike an actor whose inbox holds a copy of an ingress
   * message it applied, that the duplicate-ingress and redelivery faults copy messages to it
   * while it is paused, and that it is resumed while the inbox holds a copy of an ingress
   * message it parked — the copies an engine that held no outcome for a parked client message
   * applied twice (found by this fault). At 0 a run copies neither to nor of a paused actor,
   * and waits for such copies to leave the inbox: a knob to tell a failure's cause. @default 1
   */
  readonly pauseBusy: number;
}

export const defaultFaults: Faults = {
  crash: 0.03,
  crashBudget: 20,
  restart: 0.002,
  restartBudget: 2,
  timeout: 0.01,
  longPause: 0.002,
  duplicateIngress: 0.01,
  redeliver: 0.01,
  sweep: 0.03,
  sweepBudget: 30,
  partialSend: 0.05,
  reorder: 0.1,
  compaction: 0.002,
  compactionBudget: 1,
  retentionJump: 0.05,
  retentionJumpBudget: 2,
  lateRedrive: 0.5,
  lateRedriveBudget: 3,
  strand: 0,
  strandBudget: 2,
  agingJump: 0,
  agingJumpBudget: 3,
  replaceQueue: 0.002,
  replaceQueueBudget: 1,
  deploy: 0.005,
  roll: 0.02,
  endFailing: 0,
  pause: 0,
  pauseBudget: 3,
  pauseBusy: 1,
};

/** No faults at all: a plain deterministic run (the sweeper still runs when all else is quiet). */
export const noFaults: Faults = {
  crash: 0,
  crashBudget: 0,
  restart: 0,
  restartBudget: 0,
  timeout: 0,
  longPause: 0,
  duplicateIngress: 0,
  redeliver: 0,
  sweep: 0,
  sweepBudget: 0,
  partialSend: 0,
  reorder: 0,
  compaction: 0,
  compactionBudget: 0,
  retentionJump: 0,
  retentionJumpBudget: 0,
  lateRedrive: 0,
  lateRedriveBudget: 0,
  strand: 0,
  strandBudget: 0,
  agingJump: 0,
  agingJumpBudget: 0,
  replaceQueue: 0,
  replaceQueueBudget: 0,
  deploy: 0,
  roll: 0,
  endFailing: 0,
  pause: 0,
  pauseBudget: 0,
  pauseBusy: 0,
};
