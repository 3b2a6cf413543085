import { BatonError, ErrorCode, isBatonError, SYSTEM } from '@baton/core';
import { ingressMessageId, ingressTarget } from '@baton/core/adapter';
import { Client } from '@baton/core/client';
import { errorLine, failingFor } from '../inspectedFailing.ts';
import { actorArg } from './actors.ts';
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
async function clientFor(ctx: OpsContext): Promise<Client> {
  const app = await ctx.app('sending needs the app, to check the message against its schema');
  const { store, queue } = await ctx.target();
  return new Client({ actors: app.actors, store, queue }).asSystem();
}

function refOf(id: string) {
  return { id } as Parameters<Client['send']>[0];
}

/** `baton send <type/key> <name> [json] --app <entry> [--key k]`: enqueues, prints the id. */
export async function send(ctx: OpsContext): Promise<void> {
  const to = actorArg(ctx, 0);
  const name = ctx.arg(1, 'message name');
  const payload = payloadArg(ctx);
  const client = await clientFor(ctx);
  const key = ctx.values.key;
  const { messageId } = await client.send(refOf(to), name as never, payload as never, {
    ...(key ? { idempotencyKey: key } : {}),
  });
  await ctx.audit('send', { actor: to, name, messageId });
  ctx.print({ messageId }, () => `sent ${name} to ${to}\nmessage id ${shellQuote(messageId)}`);
}

/** `baton ask <type/key> <name> [json] --app <entry> [--key k] [--timeout 30s]`: the reply. */
export async function ask(ctx: OpsContext): Promise<void> {
  const to = actorArg(ctx, 0);
  const name = ctx.arg(1, 'message name');
  const payload = payloadArg(ctx);
  const timeoutMs = timeoutArg(ctx.values.timeout);
  const client = await clientFor(ctx);
  const key = ctx.values.key ?? globalThis.crypto.randomUUID();
  await ctx.audit('ask', { actor: to, name, key });
  let value: unknown;
  try {
    value = await client.ask(refOf(to), name as never, payload as never, {
      idempotencyKey: key,
      timeoutMs,
    });
  } catch (error) {
    if (!isBatonError(error) || error.code !== ErrorCode.ASK_TIMEOUT) throw error;
    // The library's advice names its option: the CLI's way keeps the key it chose.
    const [json, entry] = [ctx.args[2] ?? '{}', ctx.values.app ?? ''];
    throw new BatonError(
      ErrorCode.ASK_TIMEOUT,
      `no reply from ${to} to "${name}" within ${timeoutMs / 1000}s; the message was sent under the key ${key} and may still be applied (its actor may be paused or behind). Do not run the same command again without --key: it would send the message again, under a new key. Read its outcome once processed: ${ctx.followUp`outcome ${to} ${key}`}; or wait for its reply again under the same key: ${ctx.followUp`ask ${to} ${name} ${json} --app ${entry} --key ${key}`}`,
      { details: { ...error.details, actor: to, key }, cause: error },
    );
  }
  // A handler that returns nothing replies null, so `--json` prints `{"value": null}`, not `{}`.
  ctx.print({ value: value ?? null }, (r) => JSON.stringify(r.value));
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
  const first = ctx.arg(0, 'message id');
  const messageId =
    ctx.args.length >= 2
      ? ingressMessageId(actorArg(ctx, 0), ctx.arg(1, 'idempotency key'), SYSTEM)
      : first;
  const { store } = await ctx.target();
  const record = await store.readIdempotency(messageId);
  if (!record && lostItsQuotes(messageId)) throw quotesLost(messageId, {});
  if (!record || record.expiresAt <= ctx.io.now()) {
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
      `no outcome of ${messageId}: it is not processed yet (or the actor is paused), or it is older than the retention window${byKey}`,
      { details: { messageId } },
    );
  }
  // A DEAD_LETTERED outcome's error says to redrive the letter, as it was when kept: say whether
  // it is kept still, or was purged (a redrive applied or failed anew would have replaced it).
  const deadLetter =
    !record.outcome.ok && record.outcome.error.code === ErrorCode.DEAD_LETTERED
      ? await letterOf(ctx, record.actorId, messageId)
      : undefined;
  const shown = { messageId, actor: record.actorId, outcome: record.outcome };
  ctx.print(deadLetter === undefined ? shown : { ...shown, deadLetter }, (r) =>
    r.outcome.ok
      ? `ok ${JSON.stringify(r.outcome.value ?? null)}`
      : `failed ${r.outcome.error.code}: ${r.outcome.error.message}` +
        (deadLetter === 'kept'
          ? `\nits dead letter is kept: ${ctx.followUp`dead-letters show ${r.actor} ${messageId}`}`
          : deadLetter === 'purged'
            ? '\nits dead letter is no longer kept: it was purged, never applied, and no redrive can apply it'
            : ''),
  );
}

/** Whether the dead letter of a message whose outcome is DEAD_LETTERED is kept, or purged. */
async function letterOf(
  ctx: OpsContext,
  actorId: string,
  messageId: string,
): Promise<'kept' | 'purged'> {
  const { store } = await ctx.target();
  const letter = await store.readDeadLetter(actorId, messageId);
  return letter && !letter.applied && letter.parked === undefined ? 'kept' : 'purged';
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
