/** A failed run: what went wrong, the seed to replay it, and the last steps taken. */
export class SimulationError extends Error {
  constructor(
    message: string,
    readonly seed: number,
    readonly trace: readonly string[],
  ) {
    super(
      `${message}\n  replay with seed ${seed}\n  last steps:\n    ${trace.slice(-40).join('\n    ')}`,
    );
    this.name = 'SimulationError';
  }
}
