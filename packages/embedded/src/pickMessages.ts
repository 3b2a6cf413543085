/** Which messages a receive of the embedded queue hands out, and which are dead or expired. */
import type { MessageGroup } from './MessageGroup.ts';
import type { StoredMessage } from './StoredMessage.ts';

/** Which messages a receive may hand out; the others are dead or expired. */
export interface PickLimits {
  /** Receives after which a message goes to the dead-letter queue. */
  readonly maxReceives: number;
  /** A message sent at or before this time (epoch ms) is past the queue's retention. */
  readonly sentBy: number;
}

/** Whether `m` is past the queue's retention. */
function isExpired(m: StoredMessage, limits: PickLimits): boolean {
  return m.sentAt <= limits.sentBy;
}

/** Whether `m` may be handed out: neither expired nor received `maxReceives` times. */
function isLive(m: StoredMessage, limits: PickLimits): boolean {
  return m.receiveCount < limits.maxReceives && !isExpired(m, limits);
}

/** Whether `group` holds a message a receive may hand out. */
export function hasLive(group: MessageGroup, limits: PickLimits): boolean {
  for (let i = 0; i < group.size; i++) if (isLive(group.at(i)!, limits)) return true;
  return false;
}

/**
 * Picks up to `max` messages from `groups` (receivable, oldest head first) into `plan.picks`:
 * round-robin, in order within a group. Messages past the retention go to `plan.expired`, those
 * already received `maxReceives` times to `plan.dead` (the dead-letter queue). Changes nothing
 * else.
 */
export function pickMessages(
  groups: readonly MessageGroup[],
  max: number,
  limits: PickLimits,
  plan: {
    readonly picks: StoredMessage[];
    readonly dead: StoredMessage[];
    readonly expired: StoredMessage[];
  },
): void {
  const { picks, dead, expired } = plan;
  /** Per group, the index of the next message to look at; -1 once the group has no more. */
  const next = new Array<number>(groups.length).fill(0);
  for (let open = groups.length; picks.length < max && open > 0; ) {
    for (let g = 0; g < groups.length && picks.length < max; g++) {
      if (next[g] === -1) continue;
      const group = groups[g]!;
      let message = group.at(next[g]!);
      while (message && !isLive(message, limits)) {
        (isExpired(message, limits) ? expired : dead).push(message);
        message = group.at(++next[g]!);
      }
      if (message) {
        picks.push(message);
        next[g]!++;
      } else {
        next[g] = -1;
        open--;
      }
    }
  }
}
