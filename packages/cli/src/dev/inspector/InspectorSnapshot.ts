/** What the inspector's live query returns: a running app, seen from inside. */

import type { InspectedFailing } from '../../inspectedFailing.ts';

/** The live query the inspector page subscribes to (args `{}`). */
export const INSPECTOR_QUERY = 'baton.inspector';

export interface InspectorSnapshot {
  /** e.g. `embedded, data in …/.baton`. */
  readonly backend: string;
  /** The app process's pid (it changes when the app reloads or is restarted). */
  readonly pid: number;
  readonly startedAt: number;
  readonly actorTypes: readonly {
    readonly name: string;
    readonly messages: readonly string[];
    readonly instances: number;
  }[];
  /** The first {@link MAX_ACTORS} actors by id. */
  readonly actors: readonly {
    readonly id: string;
    readonly ver: number;
    readonly inboxOffset: string;
    readonly state: unknown;
    /** Set while an operator holds it paused. */
    readonly paused?: ActorPause;
    /** The message failing at the head of its inbox, which its later messages wait behind. */
    readonly failing?: InspectedFailing;
  }[];
  readonly actorCount: number;
  /**
   * `since-start`: only the actors committed since the app process started are listed
   * (local-aws, whose inspector follows the change feed); the others are in DynamoDB all the same.
   */
  readonly actorsListed: 'all' | 'since-start';
  /**
   * The paused actors (of those listed: see `actorsListed`), oldest pause first: the first
   * {@link MAX_PAUSED} of {@link pausedCount}, each with the messages parked for it.
   */
  readonly pausedActors: readonly (ActorPause & { readonly id: string; readonly parked: number })[];
  readonly pausedCount: number;
  readonly depths: {
    readonly inbox: number;
    readonly inFlight: number;
    readonly outbox: number;
    readonly deadLetters: number;
  };
  readonly turns: readonly {
    readonly at: number;
    readonly actorId: string;
    readonly durationMs: number;
    readonly messages: readonly {
      readonly id: string;
      readonly name: string;
      readonly from: string;
      readonly outcome: string;
      readonly error?: string;
    }[];
  }[];
  readonly turnCount: number;
  /** The dead letters (not the messages parked for a paused actor: see `pausedActors`). */
  readonly deadLetters: readonly {
    readonly actorId: string;
    readonly messageId: string;
    readonly name: string;
    readonly payload: unknown;
    readonly error: string;
    readonly attempts: number;
    readonly at: number;
    readonly redrivable: boolean;
  }[];
  readonly queries: readonly {
    readonly query: string;
    readonly args: unknown;
    readonly subscribers: number;
  }[];
  readonly connections: number;
  /** The app's workflow instances (the first {@link MAX_ACTORS}), newest first, with their steps. */
  readonly workflows: readonly InspectedWorkflow[];
}

/** Who paused an actor (`pauseActor`'s `by`), and when (epoch ms). */
export interface ActorPause {
  readonly at: number;
  readonly by: string;
}

export type { InspectedFailing };

/** One workflow instance as the inspector lists it, with its step timeline. */
export interface InspectedWorkflow {
  readonly workflow: string;
  readonly id: string;
  readonly status: string;
  readonly startedAt?: number;
  readonly endedAt?: number;
  readonly error?: string;
  /** What its run last gave `ctx.setProgress`, as JSON (clipped). */
  readonly progress?: string;
  /** How many times it continued as new (its steps are the current run's). */
  readonly continued?: number;
  /** Each command of its run: what `workflowHistory` shows, without results. */
  readonly steps: readonly {
    readonly seq: number;
    readonly kind: string;
    readonly name: string;
    readonly state: string;
    readonly attempts?: number;
    readonly at: number;
    readonly endedAt?: number;
    readonly error?: string;
  }[];
}

export const MAX_ACTORS = 200;

/** The paused actors a snapshot lists; it counts them all. */
export const MAX_PAUSED = 50;
