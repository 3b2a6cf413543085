/**
 * What a message sends, as envelopes: numbered on from the actor's `sentSeq`, each naming the
 * previous message on its channel (`prev`), carrying the handling's trace — the handler's sends
 * and asks, and the reply an actor's ask gets with the message's outcome.
 */
import { jsonSize } from '../adapter/conflicts.ts';
import { ASK_REPLY, actorMessageId, type Envelope, isActorSender } from '../adapter/envelope.ts';
import type { ActorRecord, Outcome } from '../adapter/storedRecords.ts';
import type { HandlingTrace } from '../adapter/traceContext.ts';
import type { BatonError } from '../errors.ts';
import type { TurnEngine } from './createEngine.ts';
import { maxOutcomeBytes } from './outcomePages.ts';
import { errorGist } from './outcomes.ts';
import type { OverflowLookup } from './overflow.ts';
import { replyTooLarge } from './turnErrors.ts';

/** A send a turn makes: a handler's, or the reply to an ask. */
export interface Send {
  readonly to: string;
  readonly name: string;
  readonly payload: unknown;
  readonly ask?: string;
  readonly replyTo?: string;
}

/** Whether `envelope` is an actor's ask, which a reply message answers. */
export const isActorAsk = (envelope: Envelope): boolean =>
  envelope.ask !== undefined && isActorSender(envelope);

/**
 * MESSAGE_TOO_LARGE for the value `reply` when it answers an actor's ask and is larger than a
 * reply may take, as much as a client's ask takes: the reply goes as a message, which must fit
 * an item of its own, and a larger one would fail every commit of its batch and block the actor.
 */
export function askReplyRefused(
  engine: TurnEngine,
  envelope: Envelope,
  reply: unknown,
): BatonError | undefined {
  if (!isActorAsk(envelope)) return undefined;
  const limit = maxOutcomeBytes(engine.store);
  return jsonSize(reply) > limit ? replyTooLarge(envelope, limit) : undefined;
}

/**
 * The reply an actor's ask gets with this message's outcome; none for other messages. An error
 * over what an outcome may hold (a handler's TerminalError with a long text, say) goes as its
 * gist: a reply too large to send would fail every commit of its batch. A value that large is
 * refused before ({@link askReplyRefused}).
 */
export function askReply(engine: TurnEngine, envelope: Envelope, outcome: Outcome): Send[] {
  if (!isActorAsk(envelope)) return [];
  const limit = maxOutcomeBytes(engine.store);
  const payload =
    outcome.ok || jsonSize(outcome) <= limit
      ? outcome
      : { ok: false, error: errorGist(outcome.error, limit) };
  return [{ to: envelope.from, name: ASK_REPLY, payload, replyTo: envelope.ask }];
}

/**
 * `sends` as envelopes, numbered on from the record's `sentSeq`, each naming the previous
 * message on its channel; and the record with `sentSeq` and its channels moved on.
 */
export async function outgoing(
  { engine, overflow }: { readonly engine: TurnEngine; readonly overflow: OverflowLookup },
  record: ActorRecord,
  sends: readonly Send[],
  trace: HandlingTrace | undefined,
): Promise<{ record: ActorRecord; envelopes: Envelope[] }> {
  if (sends.length === 0) return { record, envelopes: [] };
  const now = engine.clock.now();
  await overflow.load(
    record,
    sends.map(({ to }) => ({ kind: 'channel', peer: to }) as const),
  );
  const channels = { ...record.channels };
  let sentSeq = record.sentSeq;
  const envelopes: Envelope[] = [];
  for (const { to, name, payload, ask, replyTo } of sends) {
    sentSeq++;
    const prev = (channels[to] ?? (await overflow.channel(record, to)))?.seq ?? 0;
    channels[to] = { seq: sentSeq, at: now };
    envelopes.push({
      id: actorMessageId(record.id, sentSeq, record.life),
      from: record.id,
      seq: sentSeq,
      prev,
      to,
      name,
      payload,
      sentAt: now,
      ...(trace && { traceparent: trace.child }),
      ...(ask && { ask }),
      ...(replyTo && { replyTo }),
    });
  }
  return { record: { ...record, sentSeq, channels }, envelopes };
}
