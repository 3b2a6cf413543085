/**
 * How often each fault strikes. Each is the chance, per scheduling step, that the fault is
 * chosen instead of normal progress; budgets cap the total so every schedule reaches quiet.
 */
export interface Faults {
  /** Kill a process that has a call parked at an I/O boundary. @default 0.03 */
  readonly crash: number;
  /** Most crashes in one run. @default 20 */
  readonly crashBudget: number;
  /** Kill every process and reopen the backend from its journal. @default 0.002 */
  readonly restart: number;
  /** Most restarts in one run. @default 2 */
  readonly restartBudget: number;
  /** Jump time past the visibility timeout, so in-flight messages go to another worker. @default 0.01 */
  readonly timeout: number;
  /** Jump time past the queue's dedupe window. @default 0.002 */
  readonly longPause: number;
  /** Send an earlier ingress message again with the same idempotency key. @default 0.01 */
  readonly duplicateIngress: number;
  /** Deliver an earlier envelope again under a fresh dedupe id (SQS at-least-once). @default 0.01 */
  readonly redeliver: number;
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
};

/** No faults at all: a plain deterministic run. */
export const noFaults: Faults = {
  crash: 0,
  crashBudget: 0,
  restart: 0,
  restartBudget: 0,
  timeout: 0,
  longPause: 0,
  duplicateIngress: 0,
  redeliver: 0,
};
