/** Checks a workflow's code against recorded histories (see `@baton/core`'s `replayWorkflow`). */
export { replayWorkflow } from '@baton/core';
export { FaultyQueue, type FaultyQueueOptions, type QueueFault } from './FaultyQueue.ts';
export { defaultFaults, type Faults, noFaults } from './faults.ts';
export { SimulatedCrash } from './Gates.ts';
export { type QueryEnvironment, runQuery } from './runQuery.ts';
export type { SentKey, SentOutcome } from './SentKey.ts';
export { type SimPorts, SimProcess, type SimProcessOptions } from './SimProcess.ts';
export { Simulation, SimulationError, type SimulationOptions } from './Simulation.ts';
export type { SimulationStats } from './SimulationStats.ts';
export { VirtualClock } from './VirtualClock.ts';
