/**
 * The handler context: what a handler sees of its actor and the world during one message.
 */
import type { ActorRef, AnyActorDefinition, MessageName, PayloadOf } from './actor.ts';
import type { Envelope } from './adapter/envelope.ts';
import type { Logger } from './logger.ts';

export interface ActorContext<State> {
  /** A draft of the state: read and change it in place. It commits only if the handler returns. */
  state: State;
  /** This actor. */
  readonly self: { readonly type: string; readonly key: string; readonly id: string };
  /** The message being handled. */
  readonly message: Pick<Envelope, 'id' | 'from' | 'name' | 'sentAt'>;
  /**
   * Sends a message to another actor. It leaves only after this turn commits, exactly once.
   * @example ctx.send(Account.ref('bob'), 'deposit', { amount: 5 });
   */
  send<Def extends AnyActorDefinition, Name extends MessageName<Def>>(
    to: ActorRef<Def>,
    name: Name,
    payload: PayloadOf<Def, Name>,
  ): void;
  /** Sets the reply an asker receives (the handler's return value does the same). */
  reply(value: unknown): void;
  /** The turn's time, epoch ms: fixed for the message, committed with its effects. */
  now(): number;
  /** A random number in [0, 1). */
  random(): number;
  /** A random UUID (v4). */
  uuid(): string;
  readonly log: Logger;
}
