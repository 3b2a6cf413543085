/** Thrown into a simulated process's I/O calls once it has crashed. */
export class SimulatedCrash extends Error {
  constructor(readonly processId: number) {
    super(`simulated crash of process ${processId}`);
    this.name = 'SimulatedCrash';
  }
}

/** One I/O call of a simulated process, parked at a boundary until the scheduler picks it. */
export interface ParkedCall {
  readonly processId: number;
  readonly label: string;
  readonly resume: () => void;
  readonly crash: (error: SimulatedCrash) => void;
}

/**
 * The I/O boundaries of all simulated processes. Every store and queue call parks here before
 * and after it runs; the simulation resumes one parked call at a time, so the order in which
 * concurrent turns reach the backend is chosen by the seed alone.
 */
export class Gates {
  readonly #parked: ParkedCall[] = [];

  get parked(): readonly ParkedCall[] {
    return this.#parked;
  }

  park(processId: number, label: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#parked.push({ processId, label, resume: resolve, crash: reject });
    });
  }

  /** Removes and returns the parked call at `index`. */
  take(index: number): ParkedCall {
    const [call] = this.#parked.splice(index, 1);
    if (!call) throw new RangeError(`no parked call at ${index}`);
    return call;
  }

  /** Removes and returns every parked call of one process. */
  takeAll(processId: number): ParkedCall[] {
    const taken = this.#parked.filter((call) => call.processId === processId);
    for (const call of taken) this.#parked.splice(this.#parked.indexOf(call), 1);
    return taken;
  }
}

/** Lets every resumed call run until it parks again or finishes (no real I/O happens here). */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
