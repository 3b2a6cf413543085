/** One step a simulation run may take: a fault, or a piece of normal progress. */
export interface Action {
  /** What the trace shows for the step. */
  readonly label: string;
  readonly run: () => Promise<void> | void;
}
