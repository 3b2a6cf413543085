/**
 * `baton outcome`: the stored outcome of a client message, by its id or by its actor and
 * idempotency key; of one dead-lettered, whether its letter is kept, parked or purged; of one
 * with no outcome, what holds it when its actor's record tells.
 */
import { BatonError, ErrorCode, SYSTEM } from '@baton/core';
import {
  type DeadLetter,
  type FailingMessage,
  heldAtPause,
  type IdempotencyRecord,
  ingressMessageId,
  ingressTarget,
  parseActorId,
} from '@baton/core/adapter';
import { errorLine, failingFor } from '../inspectedFailing.ts';
import { actorArg } from './actors.ts';
import { callerOption, keyScope } from './callerOption.ts';
import { causeOf, causeOfError, type KeptError } from './deadLetterCauses.ts';
import { isoTime } from './format.ts';
import { trailLines, trailSummary, trailsOf } from './letterTrails.ts';
import { lostItsQuotes, quotesLost } from './messageIds.ts';
import type { OpsContext } from './OpsContext.ts';
import { shellQuote } from './target.ts';

/**
 * `baton outcome <message id>` or `baton outcome <type/key> <idempotency key>` (a key the
 * CLI sent with, or `--caller`'s): the stored outcome of a client message, once processed.
 */
export async function outcome(ctx: OpsContext): Promise<void> {
  const messageId = outcomeId(ctx);
  const { store } = await ctx.target();
  let record = await store.readIdempotency(messageId);
  if (!record && lostItsQuotes(messageId)) throw quotesLost(messageId, {});
  // A message parked at its paused actor holds an outcome that waits for the resume
  // (ACTOR_PAUSED): no outcome yet, and where it is held says more.
  if (!record || record.expiresAt <= ctx.io.now() || heldAtPause(record)) {
    const held = await heldAt(ctx, messageId);
    if (held) {
      throw new BatonError(ErrorCode.NOT_FOUND, `no outcome of ${messageId}: ${held}`, {
        details: { messageId },
      });
    }
    // A key names a message per caller: read in the CLI's own scope, that is said first.
    const { lead, tail } = keyScope(ctx);
    throw new BatonError(
      ErrorCode.NOT_FOUND,
      `no outcome of ${messageId}${lead}: it is not processed yet (or the actor is paused), or it is older than the retention window, or it is in the inbox's dead-letter queue (SQS moved it there after maxReceiveCount receives: ${ctx.followUp`queue-dead-letters list`} shows it)${tail}${await behindFailing(ctx, messageId)}`,
      { details: { messageId } },
    );
  }
  // A DEAD_LETTERED outcome's error says to redrive the letter, as it was when kept: say whether
  // it is kept still, parked at its paused actor by a redrive, or was purged.
  let letter = isDeadLettered(record) ? await letterOf(ctx, record.actorId, messageId) : undefined;
  if (letter?.parked) {
    // Redriven while its actor is paused: the redrive parked it there, and the resume applies
    // it. Its stored outcome is the dead letter's still, which the resume replaces.
    const { actorId } = record;
    throw new BatonError(
      ErrorCode.NOT_FOUND,
      `no outcome of ${messageId} yet: it was dead-lettered, then redriven while ${actorId} is paused, and is parked there; it is applied, once, when ${actorId} is resumed (${ctx.followUp`actors resume ${actorId}`}). Do not send it again under a new key: it would be applied twice`,
      { details: { messageId, actor: actorId, parked: true } },
    );
  }
  if (letter && !letter.kept) {
    // The commit that applies a letter (a redrive's, a resume's) removes it and replaces the
    // outcome: read the outcome again, so that a letter applied since the first read is not
    // told as purged.
    const again = await store.readIdempotency(messageId);
    if (again && !isDeadLettered(again)) {
      record = again;
      letter = undefined;
    }
  }
  const shown = { messageId, actor: record.actorId, outcome: record.outcome };
  // A letter kept says what operators did to it: ended it, redrove it (letterTrails.ts).
  const kept = letter?.kept ? letter.letter : undefined;
  const trail = kept && trailSummary(kept, (await trailsOf(ctx, [kept])).get(kept));
  const told =
    letter === undefined
      ? shown
      : letter.kept
        ? { ...shown, deadLetter: 'kept', deadLetterCause: letter.cause, ...trail }
        : { ...shown, deadLetter: 'purged' };
  ctx.print(told, (r) => {
    if (r.outcome.ok) return `ok ${JSON.stringify(r.outcome.value ?? null)}`;
    const { error } = r.outcome;
    if (!letter?.kept) {
      if (letter === undefined) return `failed ${error.code}: ${error.message}`;
      // The stored error says to fix the cause and redrive the letter: no longer so.
      return `failed ${error.code}${causeCodeOf(error)}\nits dead letter is no longer kept: it was purged, never applied, and no redrive can apply it (--json has the error as it was stored)`;
    }
    // The stored error is the caller's, which withholds an unexpected error's text: the
    // letter keeps it.
    const { code, message } = letter.cause;
    const lines = trail ? trailLines(trail, r.actor, isoTime(kept!.at), ctx.io.now()) : [];
    return [
      `failed ${error.code}: ${error.message}\nits dead letter is kept (cause ${code}: ${message}): ${ctx.followUp`dead-letters show ${r.actor} ${messageId}`}`,
      ...lines,
    ].join('\n');
  });
}

/** Whether `record`'s outcome is DEAD_LETTERED: its message was kept as a dead letter. */
function isDeadLettered(record: IdempotencyRecord): boolean {
  return !record.outcome.ok && record.outcome.error.code === ErrorCode.DEAD_LETTERED;
}

/**
 * ` (its cause: CODE)` of a DEAD_LETTERED error, when it keeps one: the innermost, as `dead-letters
 * list` named it while its letter was kept.
 */
function causeCodeOf(error: KeptError): string {
  const { code } = causeOfError(error);
  return code === error.code ? '' : ` (its cause: ${code})`;
}

/** Both forms of `baton outcome`, for its usage errors. */
const OUTCOME_FORMS =
  "baton outcome takes <message id> (a client message's, 'ingress:[…]', quoted as send and ask print it) or <type/key> <idempotency key> (a key the CLI sent with, or with --caller a client's)";

/**
 * The id of the message `outcome` reads: the one given, or the CLI's id of `<type/key> <key>`.
 * A first argument alone that is no client message's id is refused (a typo would read as a
 * message not processed yet), as is a message id given where the key goes (the order of
 * `dead-letters show`), which would name another message.
 */
function outcomeId(ctx: OpsContext): string {
  const first = ctx.arg(0, 'message id');
  const second = ctx.args[1];
  const caller = callerOption(ctx.values.caller);
  if (second === undefined) {
    if (caller) {
      throw new BatonError(
        ErrorCode.INVALID_ARGUMENT,
        `--caller goes with <type/key> <idempotency key>: a message id names its caller already; ${OUTCOME_FORMS}`,
      );
    }
    if (first.startsWith('ingress:')) return first;
    throw notAClientMessage(ctx, first);
  }
  if (second.startsWith('ingress:')) {
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      `${shellQuote(second)} is a message id, not an idempotency key: give it alone, ${ctx.followUp`outcome ${second}`}; ${OUTCOME_FORMS}`,
      { details: { messageId: second } },
    );
  }
  return ingressMessageId(actorArg(ctx, 0), ctx.arg(1, 'idempotency key'), caller ?? SYSTEM);
}

/**
 * The id of a message one actor sent another: `<sender>:<life>.<seq>`, or `<sender>:<seq>` from
 * a record written before lives (an actor type holds no `:` or `/`); the sender is group 1.
 */
const ACTOR_MESSAGE_ID = /^([^/:]+\/.+):(?:[0-9A-Za-z]+\.)?\d+$/;

/**
 * The refusal of `outcome <first>` when `first` names no client message: a message between
 * actors (as `dead-letters list` prints them) and a timer's fire keep no outcome record, so what
 * to read instead; an actor id wants the key after it.
 */
function notAClientMessage(ctx: OpsContext, first: string): BatonError {
  const details = { details: { given: first } };
  const sender = ACTOR_MESSAGE_ID.exec(first)?.[1];
  if (sender !== undefined) {
    return new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      `${shellQuote(first)} is the id of a message ${sender} sent another actor (<sender>:<life>.<seq>), and a message between actors keeps no outcome record: outcomes are kept for client messages (a send or an ask, 'ingress:[…]'). If it was dead-lettered, it is a letter of the actor it went to (the ACTOR column of ${ctx.followUp`dead-letters list`}): ${ctx.followUp`dead-letters show <type/key> ${first}`} shows it, and ${ctx.followUp`dead-letters redrive <type/key> ${first}`} applies it again; whether that actor applied it shows in its state: ${ctx.followUp`actors get <type/key>`}`,
      details,
    );
  }
  const timer = first.startsWith('timer:') ? timerOwner(first) : undefined;
  if (timer !== undefined) {
    return new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      `${shellQuote(first)} is the id of a timer's fire at ${timer}, and a fire keeps no outcome record: outcomes are kept for client messages (a send or an ask, 'ingress:[…]'). ${ctx.followUp`timers list ${timer}`} lists its timers still to fire, and ${ctx.followUp`dead-letters show ${timer} ${first}`} shows the fire if it was dead-lettered`,
      details,
    );
  }
  const actor = parseActorId(first) ? ` ${first} is an actor id: give the key after it.` : '';
  return new BatonError(
    ErrorCode.INVALID_ARGUMENT,
    `"${first}" is not a client message's id, and only a client's message (a send or an ask) keeps an outcome:${actor} ${OUTCOME_FORMS}`,
    details,
  );
}

/** The actor of a timer's fire id (`timer:["<type/key>","<timer>","<gen>"]`), if it is one. */
function timerOwner(messageId: string): string | undefined {
  try {
    const [actorId] = JSON.parse(messageId.slice('timer:'.length)) as unknown[];
    return typeof actorId === 'string' && parseActorId(actorId) ? actorId : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether the dead letter of a message whose outcome is DEAD_LETTERED is kept, with its cause;
 * parked at its paused actor by a redrive (the resume applies it); or gone (purged, or applied
 * since its outcome was read); `undefined` when it cannot be read (an operator who may not read
 * dead letters): the caller then says what is stored.
 */
export async function letterOf(
  ctx: OpsContext,
  actorId: string,
  messageId: string,
): Promise<
  | {
      kept: true;
      parked?: undefined;
      cause: { code: string; message: string };
      letter: DeadLetter;
    }
  | { kept: false; parked: boolean }
  | undefined
> {
  const { store } = await ctx.target();
  const letter = await store.readDeadLetter(actorId, messageId).catch(() => null);
  if (letter === null) return undefined;
  if (letter?.parked !== undefined) return { kept: false, parked: true };
  return letter && !letter.applied
    ? { kept: true, cause: causeOf(letter), letter }
    : { kept: false, parked: false };
}

/**
 * What holds a client message that has no outcome, when its actor's record or its dead letters
 * say: failing at the head of the actor's inbox (retried, then dead-lettered), parked at the
 * paused actor, or kept as a dead letter whose outcome outlived its retention. Else undefined:
 * waiting in the inbox, or gone past the retention window, as far as the CLI can tell.
 */
async function heldAt(ctx: OpsContext, messageId: string): Promise<string | undefined> {
  const actorId = ingressTarget(messageId);
  if (actorId === undefined) return undefined;
  const { store } = await ctx.target();
  const [record, letter] = await Promise.all([
    store.load(actorId),
    store.readDeadLetter(actorId, messageId),
  ]);
  const failing = record?.failing;
  if (failing?.id === messageId) {
    const error = failing.error ? `, last with ${errorLine(failing.error)}` : '';
    return `it is failing at the head of ${actorId}'s inbox (${failingFor(failing.since, ctx.io.now())}, failed ${failing.attempts} time(s)${error}), and ${failing.ended ? endedLine(failing.ended) : 'is retried until applied or dead-lettered'}: ${ctx.followUp`actors get ${actorId}`} shows it`;
  }
  if (letter?.parked !== undefined) {
    return `it is parked at ${actorId}, which is paused: resumed (${ctx.followUp`actors resume ${actorId}`}), it applies it`;
  }
  if (letter && !letter.applied) {
    return `it was dead-lettered, and its outcome is older than the retention window; its dead letter is kept: ${ctx.followUp`dead-letters show ${actorId} ${messageId}`}`;
  }
  return undefined;
}

/**
 * What a message with no outcome may wait behind: the message failing at its actor's head, if
 * one is (the actor's messages go in order). Empty else.
 */
async function behindFailing(ctx: OpsContext, messageId: string): Promise<string> {
  const actorId = ingressTarget(messageId);
  if (actorId === undefined) return '';
  const { store } = await ctx.target();
  const failing = (await store.load(actorId))?.failing;
  if (!failing) return '';
  const error = failing.error ? `, last with ${errorLine(failing.error)}` : '';
  const end = failing.ended
    ? `; ${endedLine(failing.ended)}`
    : `, and ${ctx.followUp`actors end-failing ${actorId} ${failing.id}`} ends it at its next delivery`;
  return `. If it is in the inbox, it waits behind message ${failing.id}, failing at the head of ${actorId}'s inbox (${failingFor(failing.since, ctx.io.now())}, failed ${failing.attempts} time(s)${error}) until that one is applied or dead-lettered: ${ctx.followUp`actors get ${actorId}`} shows it${end}`;
}

/** What a message failing at its actor's head that an operator ended waits for. */
function endedLine(ended: NonNullable<FailingMessage['ended']>): string {
  return `an operator ended it (${ended.by}, at ${isoTime(ended.at)}): not yet a dead letter, its next delivery keeps it as one without running its handler`;
}
