import { BatonError, ErrorCode, isBatonError, SYSTEM } from '@baton/core';
import {
  heldAtPause,
  type IdempotencyRecord,
  ingressMessageId,
  ingressTarget,
  parseActorId,
} from '@baton/core/adapter';
import { Client } from '@baton/core/client';
import { errorLine, failingFor } from '../inspectedFailing.ts';
import { actorArg } from './actors.ts';
import { unansweredIn } from './awsClients.ts';
import { causeOf } from './deadLetterCauses.ts';
import { lostItsQuotes, quotesLost } from './messageIds.ts';
import type { OpsContext } from './OpsContext.ts';
import { shellQuote } from './target.ts';

/** The payload argument: JSON. */
function payloadArg(ctx: OpsContext): unknown {
  const text = ctx.args[2] ?? '{}';
  try {
    return JSON.parse(text);
  } catch {
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      `the payload must be JSON, e.g. '{"amount": 5}', not ${text}`,
    );
  }
}

/** A client as trusted code, on the app's definitions: it validates what it sends. */
async function clientFor(ctx: OpsContext, to: string): Promise<Client> {
  const app = await ctx.app('sending needs the app, to check the message against its schema');
  const { store } = await ctx.target();
  const queue = await ctx.inboxOf(to);
  return new Client({ actors: app.actors, store, queue }).asSystem();
}

function refOf(id: string) {
  return { id } as Parameters<Client['send']>[0];
}

/**
 * `baton send <type/key> <name> [json] --app <entry> [--key k]`: enqueues, prints the id. The key
 * is chosen, and audited, before the send: a send that fails may have reached the inbox still (a
 * timeout after SQS took it), and only the same key makes sending it again one message.
 */
export async function send(ctx: OpsContext): Promise<void> {
  const to = actorArg(ctx, 0);
  const name = ctx.arg(1, 'message name');
  const payload = payloadArg(ctx);
  const client = await clientFor(ctx, to);
  const key = ctx.values.key ?? globalThis.crypto.randomUUID();
  const planned = ingressMessageId(to, key, SYSTEM);
  // Refused here (an unknown actor type or handler, a payload the app's schema refuses), it is
  // never sent: checked before the audit line, which records only what is sent.
  await client.check(refOf(to), name, payload, { idempotencyKey: key });
  await ctx.audit('send', { actor: to, name, key, messageId: planned });
  let messageId: string;
  try {
    ({ messageId } = await client.send(refOf(to), name as never, payload as never, {
      idempotencyKey: key,
    }));
  } catch (error) {
    if (!(await mayHaveBeenSent(ctx, error))) throw error;
    const [json, entry] = [ctx.args[2] ?? '{}', ctx.values.app ?? ''];
    const again = ctx.followUp`send ${to} ${name} ${json} --app ${entry} --key ${key}`;
    throw new BatonError(
      ErrorCode.UNAVAILABLE,
      `sending "${name}" to ${to} failed (${failureOf(error)}); it may have reached the inbox all the same. It was sent under the key ${key}: send it again under that key, which makes the two one message: ${again} (without --key it would be sent again, under a new key)`,
      { details: { actor: to, key, messageId: planned }, cause: error },
    );
  }
  ctx.print({ messageId }, () => `sent ${name} to ${to}\nmessage id ${shellQuote(messageId)}`);
  await notePaused(ctx, to);
}

/** Says when `actorId` is paused: what is sent to it is parked, and applied on its resume. */
async function notePaused(ctx: OpsContext, actorId: string): Promise<void> {
  const { store } = await ctx.target();
  const paused = (await store.load(actorId))?.paused;
  if (!paused) return;
  ctx.note(
    `${actorId} is paused (since ${new Date(paused.at).toISOString()} by ${paused.by}): the message is parked there, and applied, in order, when it is resumed (${ctx.followUp`actors resume ${actorId}`})`,
  );
}

/**
 * What a send or an ask that threw failed with, as its own advice (send again under the key)
 * quotes it: a service that did not answer without the error's "run the command again", which
 * without the key would send the message again.
 */
function failureOf(error: unknown): string {
  return unansweredIn(error)?.summary ?? (error as Error).message;
}

/**
 * Whether a send that threw may have reached the inbox: an AWS error, or one Baton reports as
 * unavailable (a timeout, a throttle), not a refusal of the message before it was sent — nor a
 * service that did not answer before any write of the command could reach it.
 */
async function mayHaveBeenSent(ctx: OpsContext, error: unknown): Promise<boolean> {
  if (unansweredIn(error) && (await ctx.target()).writes.count === 0) return false;
  if (!isBatonError(error)) return true;
  return (
    error.code === ErrorCode.UNAVAILABLE ||
    error.code === ErrorCode.RETRYABLE ||
    error.code === ErrorCode.RATE_LIMITED
  );
}

/** `baton ask <type/key> <name> [json] --app <entry> [--key k] [--timeout 30s]`: the reply. */
export async function ask(ctx: OpsContext): Promise<void> {
  const to = actorArg(ctx, 0);
  const name = ctx.arg(1, 'message name');
  const payload = payloadArg(ctx);
  const timeoutMs = timeoutArg(ctx.values.timeout);
  const client = await clientFor(ctx, to);
  const key = ctx.values.key ?? globalThis.crypto.randomUUID();
  // Checked before the audit line, as a send is: a message refused here is never sent.
  await client.check(refOf(to), name, payload, { idempotencyKey: key });
  await ctx.audit('ask', { actor: to, name, key });
  let value: unknown;
  try {
    value = await client.ask(refOf(to), name as never, payload as never, {
      idempotencyKey: key,
      timeoutMs,
    });
  } catch (error) {
    if (isBatonError(error) && error.code === ErrorCode.DEAD_LETTERED) {
      throw await askDeadLettered(ctx, to, name, key, error);
    }
    const [json, entry] = [ctx.args[2] ?? '{}', ctx.values.app ?? ''];
    if (unansweredIn(error) && (await mayHaveBeenSent(ctx, error))) {
      // Sent, or maybe: only its key reads its outcome, or asks again as the same message.
      throw new BatonError(
        ErrorCode.UNAVAILABLE,
        `asking "${name}" of ${to} failed (${failureOf(error)}); the message may have reached the inbox all the same. It was sent under the key ${key}: read its outcome once processed: ${ctx.followUp`outcome ${to} ${key}`}; or wait for its reply under that key: ${ctx.followUp`ask ${to} ${name} ${json} --app ${entry} --key ${key}`} (without --key it would be sent again, under a new key)`,
        { details: { actor: to, key }, cause: error },
      );
    }
    if (!isBatonError(error) || error.code !== ErrorCode.ASK_TIMEOUT) throw error;
    // The library's advice names its option: the CLI's way keeps the key it chose.
    throw new BatonError(
      ErrorCode.ASK_TIMEOUT,
      `no reply from ${to} to "${name}" within ${timeoutMs / 1000}s; the message was sent under the key ${key} and may still be applied (its actor may be paused or behind). Do not run the same command again without --key: it would send the message again, under a new key. Read its outcome once processed: ${ctx.followUp`outcome ${to} ${key}`}; or wait for its reply again under the same key: ${ctx.followUp`ask ${to} ${name} ${json} --app ${entry} --key ${key}`}`,
      { details: { ...error.details, actor: to, key }, cause: error },
    );
  }
  // A handler that returns nothing replies null, so `--json` prints `{"value": null}`, not `{}`.
  ctx.print({ value: value ?? null }, (r) => JSON.stringify(r.value));
}

/**
 * The failure of an ask whose message was kept as a dead letter. The engine's error says to
 * redrive it; but this ask was told DEAD_LETTERED, so a plain redrive refuses its letter: what to
 * do is to look at it, then purge it, or redrive it with --force — each command with the id
 * quoted for a shell. The cause is the letter's: a caller is told less of an unexpected error
 * than the operator may read.
 */
async function askDeadLettered(
  ctx: OpsContext,
  to: string,
  name: string,
  key: string,
  error: BatonError,
): Promise<BatonError> {
  const messageId = ingressMessageId(to, key, SYSTEM);
  const told = (error.details as { cause?: { code?: string; message?: string } } | undefined)
    ?.cause;
  const letter = await letterOf(ctx, to, messageId);
  const cause = letter?.kept ? letter.cause : told;
  const why = cause?.code ? `${cause.code}: ${cause.message ?? ''}` : error.message;
  return new BatonError(
    ErrorCode.DEAD_LETTERED,
    `${to} did not apply "${name}": its message was kept as a dead letter, the actor unchanged (cause ${why}). This command, its asker, was told DEAD_LETTERED, so a plain redrive of it is refused. Fix the cause, then look at it: ${ctx.followUp`dead-letters show ${to} ${messageId}`}; purge it if it must not run: ${ctx.followUp`dead-letters purge ${to} ${messageId}`}; or, if it must be applied still, redrive it with --force: ${ctx.followUp`dead-letters redrive ${to} ${messageId} --force`}`,
    { details: { ...error.details, actor: to, key, messageId }, cause: error },
  );
}

/** `--timeout` in ms: seconds (`30`), or seconds or minutes with their unit (`30s`, `2m`). */
function timeoutArg(value: string | undefined): number {
  if (value === undefined) return 30_000;
  const given = /^(\d+(?:\.\d+)?)(s|m)?$/.exec(value);
  const ms = given ? Number(given[1]) * (given[2] === 'm' ? 60_000 : 1000) : Number.NaN;
  if (!(ms > 0)) {
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      `--timeout takes seconds above 0 (30), or a duration (30s, 2m), not "${value}"`,
    );
  }
  return ms;
}

/**
 * `baton outcome <message id>` or `baton outcome <type/key> <idempotency key>` (a key the
 * CLI sent with): the stored outcome of a client message, once processed.
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
    // A key names a message per caller: by key, this finds only the keys the CLI sent with.
    const byKey =
      ctx.args.length >= 2
        ? '; a key another caller sent names another message: look it up by the message id its send was answered with'
        : '';
    throw new BatonError(
      ErrorCode.NOT_FOUND,
      `no outcome of ${messageId}: it is not processed yet (or the actor is paused), or it is older than the retention window, or it is in the inbox's dead-letter queue (SQS moved it there after maxReceiveCount receives: ${ctx.followUp`queue-dead-letters list`} shows it)${byKey}${await behindFailing(ctx, messageId)}`,
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
  const told =
    letter === undefined
      ? shown
      : letter.kept
        ? { ...shown, deadLetter: 'kept', deadLetterCause: letter.cause }
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
    return `failed ${error.code}: ${error.message}\nits dead letter is kept (cause ${code}: ${message}): ${ctx.followUp`dead-letters show ${r.actor} ${messageId}`}`;
  });
}

/** Whether `record`'s outcome is DEAD_LETTERED: its message was kept as a dead letter. */
function isDeadLettered(record: IdempotencyRecord): boolean {
  return !record.outcome.ok && record.outcome.error.code === ErrorCode.DEAD_LETTERED;
}

/** ` (its cause: CODE)` of a DEAD_LETTERED error, when it keeps one. */
function causeCodeOf(error: { details?: unknown }): string {
  const code = (error.details as { cause?: { code?: unknown } } | undefined)?.cause?.code;
  return typeof code === 'string' ? ` (its cause: ${code})` : '';
}

/** Both forms of `baton outcome`, for its usage errors. */
const OUTCOME_FORMS =
  "baton outcome takes <message id> (a client message's, 'ingress:[…]', quoted as send and ask print it) or <type/key> <idempotency key> (a key the CLI sent with)";

/**
 * The id of the message `outcome` reads: the one given, or the CLI's id of `<type/key> <key>`.
 * A first argument alone that is no client message's id is refused (a typo would read as a
 * message not processed yet), as is a message id given where the key goes (the order of
 * `dead-letters show`), which would name another message.
 */
function outcomeId(ctx: OpsContext): string {
  const first = ctx.arg(0, 'message id');
  const second = ctx.args[1];
  if (second === undefined) {
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
  return ingressMessageId(actorArg(ctx, 0), ctx.arg(1, 'idempotency key'), SYSTEM);
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
async function letterOf(
  ctx: OpsContext,
  actorId: string,
  messageId: string,
): Promise<
  | { kept: true; parked?: undefined; cause: { code: string; message: string } }
  | { kept: false; parked: boolean }
  | undefined
> {
  const { store } = await ctx.target();
  const letter = await store.readDeadLetter(actorId, messageId).catch(() => null);
  if (letter === null) return undefined;
  if (letter?.parked !== undefined) return { kept: false, parked: true };
  return letter && !letter.applied
    ? { kept: true, cause: causeOf(letter) }
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
    return `it is failing at the head of ${actorId}'s inbox (${failingFor(failing.since, ctx.io.now())}, failed ${failing.attempts} time(s)${error}), and is retried until applied or dead-lettered: ${ctx.followUp`actors get ${actorId}`} shows it`;
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
  return `. If it is in the inbox, it waits behind message ${failing.id}, failing at the head of ${actorId}'s inbox (${failingFor(failing.since, ctx.io.now())}, failed ${failing.attempts} time(s)${error}) until that one is applied or dead-lettered: ${ctx.followUp`actors get ${actorId}`} shows it, and ${ctx.followUp`actors end-failing ${actorId} ${failing.id}`} ends it at its next delivery`;
}
