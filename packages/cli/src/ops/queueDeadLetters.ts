/**
 * The inbox's own dead-letter queue: what SQS moved there after `maxReceiveCount` receives (a
 * message a worker died on again and again, an effect retried while its target stayed down).
 * `list` peeks at its messages; `redrive` moves them back into the inbox, where the engine
 * applies each at most once: a message applied before it was dead-lettered is skipped as a copy,
 * one too old to apply safely is kept as the engine's own dead letter (`baton dead-letters`).
 */
import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { BatonError, ErrorCode } from '@baton/core';
import { decodeEnvelope, type Envelope } from '@baton/core/adapter';
import { checkDeadLetterQueueOf } from './deadLetterQueueOf.ts';
import { resumeCommands } from './deadLetterRedrive.ts';
import { clipped, duration, limitOption, table } from './format.ts';
import { requireInbox } from './inboxNeeds.ts';
import { knownType, seenTypes } from './knownType.ts';
import { pasteable } from './messageIds.ts';
import type { OpsContext } from './OpsContext.ts';
import { moveBack, redrivesOf } from './queueMoveBack.ts';

/** Messages `list` shows unless `--limit` says otherwise. */
const LIST_DEFAULT = 20;
/** How long a message `redrive` took stays hidden from another reader while it moves. */
const MOVE_VISIBILITY_S = 60;
/** How long a redrive's receive waits for a message before it counts the queue as drained. */
export const REDRIVE_WAIT_S = 2;

/** How long a look hides the messages it takes, at most: it puts them back at once after. */
const LOOK_VISIBILITY_S = 5;
/** The columns `list` and a dry-run redrive print. */
const COLUMNS = ['actor', 'name', 'from', 'messageId', 'sent', 'redrives', 'payload'];
/** The table of `peeked`, its actor and message ids shell words, as `dead-letters list` prints them. */
const peekTable = (peeked: readonly Peeked[]) => table(peeked.map(pasteable), COLUMNS);

/** What `list` shows of one message. */
type Peeked = {
  readonly actor: string;
  readonly name: string;
  readonly from: string;
  readonly messageId: string;
  /**
   * How long ago it was first sent (its envelope's time). Not how long it has been here: SQS
   * keeps it 14 days from its move, which it tells of no message (`status` has the queue's oldest).
   */
  readonly sent: string;
  /** How many times a redrive moved it back into the inbox before: it failed again since. */
  readonly redrives: number;
  /** The start of its payload's JSON, for the table. */
  readonly payload: string;
  /** The whole envelope, as the inbox would read it; absent for a body that is not one. */
  readonly envelope?: Envelope;
  /** The body as it is, for one that is not a Baton envelope. */
  readonly body?: string;
};

/**
 * `baton queue-dead-letters list [--limit n]`: the messages in the inbox's dead-letter queue —
 * of one actor, the first ten at most (SQS FIFO hands out no more of a group while those are
 * held); `redrive` moves them all.
 */
export async function queueDeadLettersList(ctx: OpsContext): Promise<void> {
  const { total, peeked } = await peek(ctx);
  ctx.print({ total, messages: peeked }, () =>
    peeked.length === 0
      ? "the inbox's dead-letter queue shows no message: it is empty, or another reader holds them"
      : `${peekTable(peeked)}\n${showing(peeked, total)}; ${LOOKED}\n${lineOf(failedAgain(peeked))}` +
        `each whole, payload included: --json; once their cause is fixed, ${ctx.followUp`queue-dead-letters redrive --dry-run`} shows what a redrive moves, then ${ctx.followUp`queue-dead-letters redrive`} moves them into the inbox`,
  );
}

/**
 * A line on the messages of `peeked` a redrive moved back before (their REDRIVES column), which
 * failed again since: a redrive before their cause is fixed brings them back here. Else nothing.
 */
function failedAgain(peeked: readonly Peeked[]): string | undefined {
  const again = peeked.filter((p) => p.redrives > 0).length;
  if (again === 0) return undefined;
  return `${again} of them were redriven before and came back (REDRIVES): the worker still dies or times out on them; fix that first (its log around their receives says why), or a redrive brings them back again`;
}

/** `text` as a line of its own, or nothing. */
const lineOf = (text: string | undefined) => (text === undefined ? '' : `${text}\n`);

/** What a look did to the messages it read. */
const LOOKED = `reading them hid them from other readers for ${LOOK_VISIBILITY_S}s at most, and put them back at once: none was deleted`;

/** `showing N of M …`: how much of the queue a look shows. */
function showing(peeked: readonly Peeked[], total: number): string {
  return peeked.length >= total
    ? `showing ${peeked.length} of ${total} message(s)`
    : `showing ${peeked.length} of ${total} message(s) (SQS counts approximately; of one actor a look shows the first ten at most, --limit shows more of others)`;
}

/**
 * How many messages the queue holds (SQS's approximate count, visible or held), and a look at
 * the first `--limit` of them, which are put back at once.
 */
async function peek(ctx: OpsContext): Promise<{ total: number; peeked: Peeked[] }> {
  const limit = limitOption(ctx.values.limit, LIST_DEFAULT);
  const { sqs, url } = await deadLetterQueue(ctx);
  // Counted before the look, which hides what it takes for a moment.
  const total = await countOf(sqs, url);
  const peeked: Peeked[] = [];
  const receipts: Array<{ Id: string; ReceiptHandle: string }> = [];
  try {
    // Each receive hides what it took for a few seconds: all are put back at the end.
    while (peeked.length < limit) {
      const taken = await receive(sqs, url, Math.min(10, limit - peeked.length), LOOK_VISIBILITY_S);
      if (taken.length === 0) break;
      for (const message of taken) {
        peeked.push(describe(message, ctx.io.now()));
        receipts.push({ Id: String(receipts.length), ReceiptHandle: message.ReceiptHandle ?? '' });
      }
    }
  } finally {
    await putBack(sqs, url, receipts);
  }
  return { total: Math.max(total, peeked.length), peeked };
}

/** Makes the messages taken under `receipts` visible again at once. */
async function putBack(
  sqs: SQSClient,
  url: string,
  receipts: ReadonlyArray<{ Id: string; ReceiptHandle: string }>,
): Promise<void> {
  for (let i = 0; i < receipts.length; i += 10) {
    await sqs.send(
      new ChangeMessageVisibilityBatchCommand({
        QueueUrl: url,
        Entries: receipts.slice(i, i + 10).map((r) => ({ ...r, VisibilityTimeout: 0 })),
      }),
    );
  }
}

/**
 * The actor type `--type` names (the messages of its actors only), or undefined for all; an
 * actor id given for it is refused.
 */
function typeFilter(ctx: OpsContext): string | undefined {
  const { type } = ctx.values;
  if (type?.includes('/')) {
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      `--type takes an actor type (${type.slice(0, type.indexOf('/'))}), not an actor id: the messages of every actor of that type are redriven`,
    );
  }
  return type;
}

/** Whether a message to `actor` is one `type` (from {@link typeFilter}) picks. */
const ofType = (type: string | undefined, actor: string | undefined) =>
  type === undefined || (actor?.startsWith(`${type}/`) ?? false);

/**
 * `baton queue-dead-letters redrive [--type t] [--dry-run]`: moves every message of the inbox's
 * dead-letter queue (with `--type`, every one to an actor of that type) back into the inbox, one
 * after the other, so that an actor's messages keep their order.
 * Each is sent again under a deduplication id of its own (`redrive-<its message id>`, which SQS
 * keeps when it moves a message to a dead-letter queue), so the inbox does not drop it as a copy
 * of the message it was — and a redrive stopped between a send and its delete, run again, sends
 * the same id, which the inbox drops within its five minutes (the engine after that). It stops at
 * the first send the inbox refuses, and says what it left.
 */
export async function queueDeadLettersRedrive(ctx: OpsContext): Promise<void> {
  const type = typeFilter(ctx);
  const dryRun = ctx.values['dry-run'] === true;
  /** This command again, on type `near`: the nearest to a --type that picked nothing. */
  const again = (near: string) =>
    dryRun
      ? ctx.followUp`queue-dead-letters redrive --type ${near} --dry-run`
      : ctx.followUp`queue-dead-letters redrive --type ${near}`;
  if (type !== undefined) {
    await knownType(ctx, type, {
      again,
      after: '. Nothing was moved',
      instead:
        'To move the messages to actors of a type another version of the app defined, leave out --app',
    });
  }
  const which = type === undefined ? 'every message' : `every message to a ${type} actor`;
  if (dryRun) {
    const { total, peeked } = await peek(ctx);
    const picked = peeked.filter((p) => ofType(type, p.actor));
    const what =
      type === undefined
        ? `all ${total} message(s) of the inbox's dead-letter queue`
        : `the messages to ${type} actors of the ${total} in the inbox's dead-letter queue`;
    // None of a --type: the types of those shown, and the nearest (a typo, with no --app to check).
    const seen =
      type === undefined || picked.length > 0
        ? ''
        : seenTypes(
            type,
            peeked.map((p) => p.actor),
            again,
          );
    const of =
      type === undefined ? '' : `; ${picked.length} of those shown are to ${type} actors${seen}`;
    ctx.print(
      { dryRun: true, total, ...(type === undefined ? {} : { type }), messages: picked },
      () =>
        total === 0
          ? "would redrive nothing: the inbox's dead-letter queue holds no message"
          : `would redrive ${what} into the inbox, each applied after what its actor received since it left; ${showing(peeked, total)}${of}` +
            (picked.length === 0
              ? ''
              : `:\n${peekTable(picked)}\n${lineOf(failedAgain(picked))}`.trimEnd()),
    );
    return;
  }
  const { sqs, url } = await deadLetterQueue(ctx);
  await ctx.inbox();
  const inbox = requireInbox(await ctx.target()).url;
  await ctx.confirm(`redrive ${which} of the inbox's dead-letter queue into the inbox?`);
  let moved = 0;
  /** Of those moved, the ones a redrive had moved back before. */
  let movedBefore = 0;
  /** The actor of each message moved, in order. */
  const actors: string[] = [];
  /** The messages of other types taken, hidden until put back at the end, and their actors. */
  const others: Array<{ Id: string; ReceiptHandle: string }> = [];
  const otherActors: string[] = [];
  try {
    for (;;) {
      const taken = await receive(sqs, url, 10, MOVE_VISIBILITY_S, REDRIVE_WAIT_S);
      if (taken.length === 0) break;
      for (const message of taken) {
        const to = decodeEnvelope(message.Body ?? '')?.to ?? message.Attributes?.MessageGroupId;
        if (!ofType(type, to)) {
          others.push({ Id: String(others.length), ReceiptHandle: message.ReceiptHandle ?? '' });
          if (to) otherActors.push(to);
          continue;
        }
        if (redrivesOf(message) > 0) movedBefore++;
        await moveBack(sqs, inbox, message);
        moved++;
        const remove = new DeleteMessageCommand({
          QueueUrl: url,
          ReceiptHandle: message.ReceiptHandle,
        });
        await sqs.send(remove).catch((error: unknown) => {
          throw new BatonError(
            ErrorCode.UNAVAILABLE,
            `moved ${moved} message(s) into the inbox; the delete of the last (to ${to ?? 'an unknown actor'}) from the dead-letter queue ${url} failed (${(error as Error).name}: ${(error as Error).message}), so it may be in both. Its actor applies it once, whichever copy comes first: run the redrive again once you may delete from that queue`,
            { cause: error, details: { moved, actor: to, messageId: message.MessageId } },
          );
        });
        if (to) actors.push(to);
      }
    }
  } finally {
    await putBack(sqs, url, others);
    await ctx.audit('queue-dead-letters redrive', {
      moved,
      ...(type === undefined ? {} : { type }),
    });
  }
  // What is left: held by another reader (a `list`, a redrive run before) or arrived since.
  const left = await countOf(sqs, url);
  // A paused actor parks what reaches it, as any message: applied once it is resumed.
  const paused = await pausedActors(ctx, actors);
  const held = actors.filter((actor) => paused.includes(actor)).length;
  const parkedAt = paused.length > 0 ? { parkedAt: paused } : {};
  const before = movedBefore > 0 ? { redrivenBefore: movedBefore } : {};
  ctx.print({ redriven: moved, left, ...before, ...parkedAt }, () =>
    [
      moved === 0
        ? type === undefined
          ? "nothing redriven: the inbox's dead-letter queue gave no message"
          : `nothing redriven: the inbox's dead-letter queue gave no message to a ${type} actor${seenTypes(type, otherActors, again)}`
        : held === 0
          ? `redriven ${moved} message(s) into the inbox: each is applied at most once, in its actor's turn, after what its actor received since it left (order does not hold across this queue)`
          : `redriven ${moved} message(s) into the inbox: ${held} to paused actor(s) (${paused.join(', ')}), parked there until resumed, then applied once, in order (${resumeCommands(paused, ctx.followUp)})` +
            (moved > held
              ? `; the other ${moved - held} each applied at most once, in its actor's turn`
              : ''),
      ...(movedBefore > 0
        ? [
            `${movedBefore} of them had come back from an earlier redrive: unless their cause is fixed (the worker's log around their receives says why), they return here`,
          ]
        : []),
      ...(others.length > 0
        ? [`${others.length} message(s) to actors of other types left in it, as --type asked`]
        : []),
      ...(left > others.length
        ? [
            `${left - others.length} message(s) left in it, held by another reader or arrived since: run it again in a minute`,
          ]
        : []),
    ].join('\n'),
  );
}

/** The actors of `actors` (ids, repeated or not) that are paused now. */
async function pausedActors(ctx: OpsContext, actors: readonly string[]): Promise<string[]> {
  const { store } = await ctx.target();
  const unique = [...new Set(actors)];
  const records = await Promise.all(unique.map((actor) => store.load(actor)));
  return unique.filter((_, i) => records[i]?.paused !== undefined);
}

/** The messages in a queue, visible or held. */
async function countOf(sqs: SQSClient, url: string): Promise<number> {
  const { Attributes: a = {} } = await reading(url, () =>
    sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: url,
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
      }),
    ),
  );
  return (
    Number(a.ApproximateNumberOfMessages ?? 0) +
    Number(a.ApproximateNumberOfMessagesNotVisible ?? 0)
  );
}

/**
 * The dead-letter queue's URL, and the SQS client: refused when the target names none, or, the
 * inbox named, when it is not the inbox's (`checkDeadLetterQueueOf`; `--force` takes one the
 * inbox's redrive policy named before).
 */
async function deadLetterQueue(ctx: OpsContext) {
  const target = await ctx.target();
  const url = target.names.deadLetterQueueUrl;
  if (!url) {
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      'no dead-letter queue to read: pass --dead-letter-queue-url <url> (or --stack <name>, whose outputs name it)',
    );
  }
  const inbox = target.names.inboxUrl;
  if (inbox !== undefined) {
    await checkDeadLetterQueueOf(target.sqs, inbox, url, ctx.values.force === true);
  }
  return { sqs: target.sqs, url };
}

async function receive(
  sqs: SQSClient,
  url: string,
  max: number,
  visibilitySeconds: number,
  waitSeconds = 0,
): Promise<Message[]> {
  const { Messages = [] } = await reading(url, () =>
    sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: url,
        MaxNumberOfMessages: max,
        VisibilityTimeout: visibilitySeconds,
        // A short poll may answer empty while messages wait: a redrive polls long before it stops.
        WaitTimeSeconds: waitSeconds,
        MessageSystemAttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
    ),
  );
  return Messages;
}

/** `read()` of the dead-letter queue at `url`; a failure names the queue and the option. */
async function reading<T>(url: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    throw new BatonError(
      ErrorCode.UNAVAILABLE,
      `could not read the inbox's dead-letter queue ${url} (${(error as Error).name}: ${(error as Error).message}): check --dead-letter-queue-url (or BATON_DEAD_LETTER_QUEUE_URL; a stack's outputs name it) and that you may read it`,
      { cause: error },
    );
  }
}

function describe(message: Message, now: number): Peeked {
  const body = message.Body ?? '';
  const envelope = decodeEnvelope(body);
  return {
    actor: envelope?.to ?? message.Attributes?.MessageGroupId ?? '?',
    name: envelope?.name ?? '(not a Baton envelope)',
    from: envelope?.from ?? '?',
    messageId: envelope?.id ?? message.MessageId ?? '?',
    sent: envelope ? `${duration(now - envelope.sentAt)} ago` : 'unknown',
    redrives: redrivesOf(message),
    payload: clipped(envelope ? (JSON.stringify(envelope.payload) ?? 'undefined') : body),
    ...(envelope ? { envelope } : { body }),
  };
}
