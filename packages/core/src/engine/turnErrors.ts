/** The terminal errors the turn engine gives a message it cannot apply. */
import { type Envelope, INGRESS, isActorSender } from '../adapter/envelope.ts';
import type { StoreLimits } from '../adapter/ports.ts';
import { BatonError, batonError, ErrorCode, messageOf } from '../errors.ts';
import { DAY, days } from '../shared/days.ts';
import { type SchemaIssue, schemaIssues } from '../shared/schemaIssues.ts';

/** The details that name a message: its id and the actor it is to. */
function ofMessage(envelope: Envelope): { messageId: string; actorId: string } {
  return { messageId: envelope.id, actorId: envelope.to };
}

/** What became of a message its handler's fault made unfit to commit, and what to do: `fix`. */
const kept = (fix: string) =>
  `the state is unchanged and the message was kept as a dead letter: ${fix}, deploy, then redrive it`;

/** What became of a message that cannot be applied as it is. */
const REJECTED = 'the message was rejected and the state is unchanged';

/** What became of a copy that may have been applied already. */
const MAYBE_APPLIED =
  'it may have been applied already, so it is kept as a dead letter: redrive it only if you know it was never applied';

/**
 * A handler would grow its actor's record past the item limit: the code's fault, so the message
 * is kept as a dead letter.
 */
export function stateTooLarge(actorId: string, limits: StoreLimits): BatonError {
  const limit = limits.maxItemBytes;
  return batonError(
    ErrorCode.STATE_TOO_LARGE,
    `the state of ${actorId} would grow past the backend's ${limit}-byte record limit; ${kept('keep large data elsewhere or split the actor')}`,
    { actorId, limit },
  );
}

/**
 * A handler left a state or a reply that JSON cannot hold (`initial`: the state `initial()`
 * returns for an actor the handler halted): the message is kept as a dead letter. `collection`,
 * for state: where it holds a Map or a Set, which JSON would keep as `{}`.
 */
export function leftNotJson(
  actorId: string,
  handler: string,
  what: 'state' | 'reply' | 'initial',
  cause: unknown,
  collection?: { readonly path: readonly string[]; readonly kind: 'Map' | 'Set' },
): BatonError {
  const path = collection && ['state', ...collection.path].join('.');
  const reason = collection
    ? `${path} is a ${collection.kind}: JSON stores it as {}, its entries lost; keep an array (z.array) or a record (z.record) instead`
    : messageOf(cause);
  const [left, keep] =
    what === 'reply'
      ? ['returned a reply', 'replies']
      : [what === 'state' ? 'left state' : 'halted, and initial() returned state', 'state'];
  return new BatonError(
    ErrorCode.INVALID_STATE,
    `handler "${handler}" of ${actorId} ${left} that is not JSON (${reason}); ${kept(`keep ${keep} to plain JSON values (no BigInt, Map, Set or cycles; a Date becomes its ISO string)`)}`,
    {
      details: { actorId, handler, [what]: 'not JSON', ...(path && { path }) },
      cause,
    },
  );
}

/** A schema issue of a value that is not there (zod's "received undefined"; "Required" before zod 4). */
const MISSING = /received undefined|^required$/i;

/**
 * A committed state its actor's `state` schema refuses: the issues as `state.<path>: message`.
 * When every issue is a field missing, most often one the schema gained since the record was
 * written, that cause leads, beside the handler's. The message is kept as a dead letter.
 */
export function stateBreaksSchema(
  actorId: string,
  handler: string,
  issues: readonly SchemaIssue[],
): BatonError {
  const { found, summary } = schemaIssues('state', issues);
  return batonError(
    ErrorCode.INVALID_STATE,
    issues.every((issue) => MISSING.test(issue.message))
      ? `state of ${actorId} lacks a field its schema requires (${summary}) as handler "${handler}" left it: most often one the schema gained since the record was written (a .default() is not filled in on load), else one the handler removed; ${kept("raise the actor's version with a migrate step that adds it (or fix the handler)")}`
      : `handler "${handler}" of ${actorId} left state its schema refuses (${summary}); ${kept('fix the handler or the schema')}`,
    { actorId, handler, issues: found },
  );
}

/**
 * The state an actor's `initial()` returns, left as it was by a handler, is one its `state`
 * schema refuses: the cause is `initial()` (or the schema), not the handler. The issues as
 * `state.<path>: message`. The message is kept as a dead letter.
 */
export function initialBreaksSchema(
  actorId: string,
  handler: string,
  issues: readonly SchemaIssue[],
): BatonError {
  const { found, summary } = schemaIssues('state', issues);
  const type = actorId.slice(0, actorId.indexOf('/'));
  return batonError(
    ErrorCode.INVALID_STATE,
    `initial() of ${type} returns state its schema refuses (${summary}), and handler "${handler}" of ${actorId} left it so; ${kept('make initial() return state the schema takes (or fix the schema)')}`,
    { actorId, handler, initial: true, issues: found },
  );
}

/**
 * What a message kept as a dead letter at once, for `error` (its code's fault), tells its sender:
 * DEAD_LETTERED, as every kept message does, since a redrive may apply it later (a workflow's
 * saga then undoes a call so answered), with `error` as its cause; `fix`, what to do, when
 * `error` does not say it.
 */
export function keptAsDeadLetter(envelope: Envelope, error: BatonError, fix?: string): BatonError {
  const message = fix ? `${error.message}; ${kept(fix)}` : error.message;
  return new BatonError(ErrorCode.DEAD_LETTERED, message, {
    details: { ...ofMessage(envelope), cause: error.toJSON() },
    cause: error,
  });
}

/** `limit`: the largest outcome the backend keeps (its item limit, less an outcome page's room). */
export function replyTooLarge(envelope: Envelope, limit: number): BatonError {
  return batonError(
    ErrorCode.MESSAGE_TOO_LARGE,
    `the reply to ${envelope.id} is larger than the ${limit} bytes a reply may take (the backend's item, less room for what it is kept with); ${REJECTED}: reply with less and keep large data elsewhere`,
    { message: envelope.id, limit },
  );
}

export function commitTooLarge(envelope: Envelope, limits: StoreLimits): BatonError {
  return batonError(
    ErrorCode.MESSAGE_TOO_LARGE,
    `message ${envelope.id} produces more than one commit can hold (${limits.maxTransactionItems} items, ${limits.maxTransactionBytes} bytes); ${kept('send fewer or smaller messages per handler')}`,
    { message: envelope.id, ...limits },
  );
}

export function deadLettered(envelope: Envelope, attempts: number, last: BatonError): BatonError {
  return batonError(
    ErrorCode.DEAD_LETTERED,
    `message ${envelope.id} to ${envelope.to} failed ${attempts} times (last: ${last.message}); it is kept as a dead letter, the actor unchanged: fix the cause, then redrive it`,
    { ...ofMessage(envelope), attempts, cause: last.toJSON() },
  );
}

/** What the running code's registry says of a message that another code version may know. */
const UNKNOWN_TO_THIS_CODE: ReadonlySet<string> = new Set([
  ErrorCode.UNKNOWN_ACTOR,
  ErrorCode.UNKNOWN_MESSAGE,
  ErrorCode.INVALID_PAYLOAD,
]);

/**
 * A message in the inbox that this code cannot resolve — an actor type or message name it does
 * not have, a payload its schema refuses — passed a door (the client, `ctx.send`,
 * `ctx.schedule`) that validated it against the code running there: during a rolling deploy,
 * newer code; after a deploy that removed or renamed a handler, older code (a timer it
 * scheduled, a message it sent), which no code may come back to know: then it is purged. So it waits, as a retryable
 * error (and is then kept as a dead letter to redrive once code that knows it runs here), rather
 * than being rejected for good. Other errors as they are.
 */
export function waitsForNewerCode(envelope: Envelope, error: BatonError): BatonError {
  if (!UNKNOWN_TO_THIS_CODE.has(error.code)) return error;
  return new BatonError(
    ErrorCode.RETRYABLE,
    `message ${envelope.id} to ${envelope.to} is unknown to the code running here (${error.message}); another release most likely sent it: it waits (then a dead letter) for code that knows it, then redrive it, or purge it if none will`,
    {
      details: { ...ofMessage(envelope), cause: error.toJSON() },
      cause: error,
    },
  );
}

/**
 * Whether a retryable failure is a deploy's: what the message needs is known only to newer code
 * — an actor type, a message name or a payload this code refuses ({@link waitsForNewerCode}), or
 * a state a newer version of the actor wrote (`upgradeState`; not a migration that threw, which
 * is the code's fault). Old code may run for minutes while a deploy rolls, so such a message
 * waits longer than other failures before it is kept as a dead letter (see `attempts.ts`).
 */
export function waitsForDeploy(error: BatonError): boolean {
  if (error.code !== ErrorCode.RETRYABLE) return false;
  const { cause, stateVersion, version, migrateStep } = error.details as {
    readonly cause?: { readonly code?: unknown };
    readonly stateVersion?: unknown;
    readonly version?: unknown;
    readonly migrateStep?: unknown;
  };
  if (typeof cause?.code === 'string' && UNKNOWN_TO_THIS_CODE.has(cause.code)) return true;
  return (
    typeof stateVersion === 'number' &&
    typeof version === 'number' &&
    stateVersion > version &&
    migrateStep === undefined
  );
}

/**
 * The delay before a deploy's failure ({@link waitsForDeploy}) is tried again, by attempt: 5 s,
 * 10 s, 20 s, 40 s, then a minute: the worker, a polling one or a Lambda's, releases the
 * message for that long.
 */
export function deployRetryMs(attempt: number): number {
  return Math.min(60_000, 5_000 * 2 ** Math.max(0, attempt - 1));
}

/** `error`, to be tried again no sooner than `retryAfterMs` from now. */
export function retriedAfter(error: BatonError, retryAfterMs: number): BatonError {
  return new BatonError(error.code, error.message, {
    details: error.details,
    cause: error.cause,
    retryAfterMs,
  });
}

/** A message of a sender's life that ended ({@link Envelope.lifeEnded}), not its redrive. */
export function isEndedLifeCopy(envelope: Envelope): boolean {
  return envelope.lifeEnded === true && envelope.redrive === undefined;
}

/**
 * A message of a sender's life that ended before it went out ({@link Envelope.lifeEnded}) is
 * kept: DEAD_LETTERED, else `undefined`. Whether it was applied is not known — its drain may
 * have sent it once before, and the receiver's mark for the sender, long pruned, may be a new
 * life's now. Its redrive is applied.
 */
export function senderLifeEnded(envelope: Envelope, now: number): BatonError | undefined {
  if (!isEndedLifeCopy(envelope)) return undefined;
  return maybeApplied(
    envelope,
    `was committed ${days(now - envelope.sentAt)} days ago by a life of ${envelope.from} that has ended (its record expired while the message waited)`,
    { sentAt: envelope.sentAt },
  );
}

/**
 * An actor's message where its receiver's mark forgot the gaps of its channel (more went missing
 * than a mark holds): it may be one of them, or a copy of one applied. DEAD_LETTERED, kept.
 */
export function inForgottenGap(envelope: Envelope): BatonError {
  return maybeApplied(envelope, "lies where its channel's gaps were forgotten", {
    forgottenGaps: true,
  });
}

/** DEAD_LETTERED for a message that may have been applied already: `why`, after its name. */
function maybeApplied(
  envelope: Envelope,
  why: string,
  details?: Record<string, unknown>,
  kind = '',
): BatonError {
  return batonError(
    ErrorCode.DEAD_LETTERED,
    `${kind}message ${envelope.id} to ${envelope.to} ${why}: ${MAYBE_APPLIED}`,
    { ...ofMessage(envelope), ...details },
  );
}

/**
 * How much sooner than a retention a message's age counts as past it: a margin for the sender's
 * clock, a day at most.
 */
export function clockMargin(retentionMs: number): number {
  return Math.min(DAY, retentionMs / 2);
}

/** Whether a message `age` ms old is as old as `retentionMs`, less the {@link clockMargin}. */
export function asOldAs(age: number, retentionMs: number): boolean {
  return age >= retentionMs - clockMargin(retentionMs);
}

/**
 * A copy of a message sent longer ago than the proof that it was applied is kept (less a margin
 * for the sender's clock): DEAD_LETTERED, else `undefined`. The proof of an ingress message is
 * its outcome (idempotency record); of an actor's message, the receiver's mark for its sender,
 * pruned once the channel is idle that long — so a message whose mark is there is told by it,
 * whatever its age, but for one in a gap the mark opened when there was none (`hasMark` false
 * then: that gap spans the messages applied before the mark was pruned; see `markProves`). A
 * copy committed but never acknowledged, moved to the queue's dead-letter queue and redriven
 * after its proof expired would otherwise be applied again. (An engine dead letter's own
 * redrive is never refused; timers are told by their stored timer. Once a redrive applied a
 * letter kept so, the letter stays as the proof, and a copy finds it: see `channelAdmission`.)
 */
export function outlivedItsProof(
  envelope: Envelope,
  now: number,
  retention: { readonly idempotencyRetentionMs: number; readonly markRetentionMs: number },
  hasMark: boolean,
): BatonError | undefined {
  if (envelope.redrive !== undefined) return undefined;
  const ingress = envelope.from === INGRESS;
  if (!ingress && (hasMark || !isActorSender(envelope))) return undefined;
  const retentionMs = ingress ? retention.idempotencyRetentionMs : retention.markRetentionMs;
  const age = now - envelope.sentAt;
  if (!asOldAs(age, retentionMs)) return undefined;
  const proof = ingress ? 'its outcome' : "its sender's mark";
  return maybeApplied(
    envelope,
    `was sent ${days(age)} days ago, about as long as ${proof} is kept (${days(retentionMs)} days)`,
    { sentAt: envelope.sentAt, retentionMs },
    ingress ? 'ingress ' : '',
  );
}
