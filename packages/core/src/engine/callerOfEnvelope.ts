import { type Envelope, INGRESS, isActorSender } from '../adapter/envelope.ts';
import { ANONYMOUS, type Caller } from '../caller.ts';

/**
 * Who sent an envelope: the actor that sent it, the actor's own timer, or the caller the door
 * named (an ingress message of older code, which named none, counts as anonymous).
 */
export function callerOfEnvelope(envelope: Envelope): Caller {
  if (isActorSender(envelope)) return { kind: 'actor', actor: envelope.from };
  if (envelope.from === INGRESS) return envelope.caller ?? ANONYMOUS;
  return { kind: 'timer' };
}
