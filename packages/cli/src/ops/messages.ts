/**
 * `baton send` and `baton ask`: a message to an actor, as trusted code sends it, checked against
 * the app's schemas first. `baton outcome` is in outcome.ts.
 */
import { BatonError, ErrorCode, isBatonError, SYSTEM } from '@baton/core';
import { ingressMessageId } from '@baton/core/adapter';
import { Client } from '@baton/core/client';
import { actorArg } from './actors.ts';
import { unansweredIn } from './awsClients.ts';
import { causeOfError } from './deadLetterCauses.ts';
import type { OpsContext } from './OpsContext.ts';
import { letterOf } from './outcome.ts';
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
  const letter = await letterOf(ctx, to, messageId);
  const { code, message } = letter?.kept ? letter.cause : causeOfError(error.toJSON());
  const why = `${code}: ${message}`;
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
