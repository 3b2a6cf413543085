/** What happened in one simulation run. */
export interface SimulationStats {
  steps: number;
  crashes: number;
  restarts: number;
  timeouts: number;
  longPauses: number;
  duplicateIngress: number;
  redeliveries: number;
  /** Commits seen on the change feed. */
  commits: number;
  /** Inbox messages received by workers (redeliveries included). */
  deliveries: number;
  /** Commits refused because another worker committed the actor first (fencing, I5). */
  versionConflicts: number;
  /** Crashes by the I/O boundary they struck, e.g. `store.commit:done` (after the commit). */
  crashesAt: Record<string, number>;
}

export function emptyStats(): SimulationStats {
  return {
    steps: 0,
    crashes: 0,
    restarts: 0,
    timeouts: 0,
    longPauses: 0,
    duplicateIngress: 0,
    redeliveries: 0,
    commits: 0,
    deliveries: 0,
    versionConflicts: 0,
    crashesAt: {},
  };
}
