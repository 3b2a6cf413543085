/** What happened in one simulation run: each fault injected, and what the system did. */
export interface SimulationStats {
  steps: number;
  /** Processes killed at an I/O boundary (see {@link crashesAt}). */
  crashes: number;
  /** Crashes by the I/O boundary they struck, e.g. `store.commit:done` (after the commit). */
  crashesAt: Record<string, number>;
  /**
   * Crashes and restarts that killed a worker between a commit with outbox items and its drain
   * (before the drain's outbox delete, and before the process acked its inbox messages).
   */
  drainWindowCrashes: number;
  /** Restarts from the journal as it was. */
  restarts: number;
  /** Restarts from the journal compacted first. */
  compactionRestarts: number;
  /** Compacting restarts after which the journal was shorter. */
  compactions: number;
  /** Time jumps past the visibility timeout. */
  timeouts: number;
  /** Time jumps past the queue's dedupe window. */
  longPauses: number;
  /** Time jumps past the per-sender mark retention. */
  retentionJumps: number;
  /** Copies kept aside at a retention jump and redriven after it (the `lateRedrive` fault). */
  lateRedrives: number;
  /** Of those, actors' messages whose sender's life had ended by then (a new life, or none yet). */
  lateRedrivesOfEndedLives: number;
  /** Engine dead letters kept for a late copy (too old to tell): the operator leaves them. */
  lateCopiesKept: number;
  /**
   * Engine dead letters kept where a receiver's mark forgot its channel's gaps (small item limits
   * hold few): a missing message or a copy, which the operator redrives only if it never applied.
   */
  forgottenGapLetters: number;
  /** Time jumps by a span within twice the mark retention (the `agingJump` fault). */
  agingJumps: number;
  /** Actor messages the queue moved to its dead-letter queue before any delivery (`strand`). */
  stranded: number;
  /** Stranded messages redriven into the inbox. */
  strandedRedrives: number;
  /** Of those, the ones that waited across a time jump (an aging or a retention jump). */
  strandedAcrossJumps: number;
  duplicateIngress: number;
  /** Envelopes delivered again under a fresh dedupe id. */
  redeliveries: number;
  /** Queue sends that failed one entry while later ones were accepted. */
  partialSends: number;
  /** Queue sends whose entries went in in another order across groups. */
  reorders: number;
  /**
   * Received messages numbered below one of another group received before (`sequenceNumbers:
   * 'group'`).
   */
  unorderedSeqs: number;
  /** Sweeper runs started. */
  sweeps: number;
  /** Envelopes the sweeper sent (the sum of its `SweepResult.sent`). */
  sweeperSent: number;
  /** Upgrades deployed (the `deploy` fault), each a rolling deploy. */
  deploys: number;
  /** Processes a rolling deploy replaced after the first, while old and new code ran side by side. */
  rolls: number;
  /**
   * Deliveries to a process whose code does not register the message's actor type yet (new code
   * sent it during a rolling deploy): the message waits until new code runs it.
   */
  unknownActorDeliveries: number;
  /** Deliveries to a process whose code has no handler of the message's name yet: it waits. */
  unknownMessageDeliveries: number;
  /** Due timers the sweepers fired into the inbox. */
  timersFired: number;
  /** Envelopes the sweeper found while a live worker held them, committed and not yet drained. */
  sweeperRaced: number;
  /** Envelopes the sweeper found that no live worker held: left by a crash or a failed drain. */
  sweeperRepairs: number;
  /** Tasks that ended holding commits they had not drained (a failed drain; redelivery repairs). */
  abandonedDrains: number;
  /** Messages the engine ended as DEAD_LETTERED after `maxAttempts` deliveries. */
  deadLettered: number;
  /** Engine dead letters redriven (`redriveDeadLetter`), each applied once. */
  redrives: number;
  /**
   * Messages failing at an actor's head that the operator ended (`endFailingMessage`): each is
   * kept as a dead letter at its next delivery, then redriven.
   */
  endedFailing: number;
  /**
   * Plain redrives refused, nothing sent, since the letter's sender was answered DEAD_LETTERED
   * (an actor's or a client's ask): the operator then redrove it with force.
   */
  answeredRefusals: number;
  /**
   * Redrives with force, each of a letter whose plain redrive was refused (one per refusal): the
   * only way a message is applied after its sender was told DEAD_LETTERED.
   */
  forcedRedrives: number;
  /** Messages moved back from the queue's own dead-letter queue (past `maxReceives`). */
  queueRedrives: number;
  /** Actors the operator paused (the `pause` fault), forced pauses included. */
  pauses: number;
  /** Of those, pauses forced past a message failing at the actor's head (`force`). */
  forcedPauses: number;
  /** Paused actors the operator resumed: each pause is resumed before the run ends. */
  resumes: number;
  /** Messages a paused actor parked (timers' fires and asks' replies among them). */
  parked: number;
  /** Of those, timers' fires and asks' replies: their timers stay, marked, while parked. */
  parkedFires: number;
  /** Inbox queues replaced by a new one that took their messages. */
  queueReplacements: number;
  /** Turns that committed their batch in two or more commits (store limits). */
  batchSplits: number;
  /** Sender marks and channels moved out of records into items of their own (`recordPeers`). */
  marksMovedOut: number;
  /** Commits that only moved marks out first, for a message whose own commit could not hold the moves. */
  roomCommits: number;
  /** Commits seen on the change feed. */
  commits: number;
  /** Commits whose sends did not fit in their record, written as outbox items apart. */
  commitsApart: number;
  /** Inbox messages received by workers (redeliveries included). */
  deliveries: number;
  /** Commits refused because another worker committed the actor first (fencing, I5). */
  versionConflicts: number;
}

export function emptyStats(): SimulationStats {
  return {
    steps: 0,
    crashes: 0,
    crashesAt: {},
    drainWindowCrashes: 0,
    restarts: 0,
    compactionRestarts: 0,
    compactions: 0,
    timeouts: 0,
    longPauses: 0,
    retentionJumps: 0,
    lateRedrives: 0,
    lateRedrivesOfEndedLives: 0,
    lateCopiesKept: 0,
    forgottenGapLetters: 0,
    agingJumps: 0,
    stranded: 0,
    strandedRedrives: 0,
    strandedAcrossJumps: 0,
    duplicateIngress: 0,
    redeliveries: 0,
    partialSends: 0,
    reorders: 0,
    unorderedSeqs: 0,
    sweeps: 0,
    sweeperSent: 0,
    timersFired: 0,
    deploys: 0,
    rolls: 0,
    sweeperRaced: 0,
    sweeperRepairs: 0,
    abandonedDrains: 0,
    deadLettered: 0,
    redrives: 0,
    endedFailing: 0,
    answeredRefusals: 0,
    forcedRedrives: 0,
    queueRedrives: 0,
    pauses: 0,
    forcedPauses: 0,
    resumes: 0,
    parked: 0,
    parkedFires: 0,
    queueReplacements: 0,
    batchSplits: 0,
    marksMovedOut: 0,
    roomCommits: 0,
    commitsApart: 0,
    commits: 0,
    deliveries: 0,
    versionConflicts: 0,
    unknownActorDeliveries: 0,
    unknownMessageDeliveries: 0,
  };
}
