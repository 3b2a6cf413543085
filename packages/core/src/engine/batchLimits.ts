/** What bounds the turns of one received batch. */
export interface BatchLimits {
  /** The inbox queue's redrive policy: a failing message is ended at its last receive. */
  readonly maxReceives?: number | undefined;
  /**
   * When the host stops the batch's work (epoch ms, the machine's clock): a Lambda
   * invocation's timeout. A workflow's turn starts no step that would end past it, less the
   * time its commit takes (see `Replayer.drive`).
   */
  readonly deadline?: number | undefined;
}
