import type { ActorPage } from '@baton/aws';

/**
 * One actor as `baton actors list` and the inspector's search show it. (A type, not an interface,
 * so it stays assignable to the table printer's `Record<string, unknown>`.)
 */
export type ActorSummary = {
  readonly id: string;
  readonly version: number;
  readonly inboxPosition: string;
  readonly paused: boolean;
  /** How many messages wait parked for it while it is paused. */
  readonly parked: number;
};

/** A page of actor records as summaries, with the cursor to the next page when there is one. */
export function actorSummaries(page: ActorPage): {
  actors: ActorSummary[];
  cursor?: string;
} {
  return {
    actors: page.records.map((r) => ({
      id: r.id,
      version: r.ver,
      inboxPosition: r.inboxOffset,
      paused: r.paused !== undefined,
      parked: r.parked ?? 0,
    })),
    ...(page.cursor ? { cursor: page.cursor } : {}),
  };
}
