import { userInfo } from 'node:os';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import type { SqsQueue } from '@baton/aws';
import { type BatonApp, BatonError, ErrorCode } from '@baton/core';
import { commandLine } from '@baton/core/engine';
import { OPERATOR_HTTP, unansweredIn } from './awsClients.ts';
import { checkInboxQueue, requireInbox } from './inboxNeeds.ts';
import { loadApp } from './loadApp.ts';
import type { OpsIo } from './OpsIo.ts';
import {
  type FollowUp,
  followUp,
  resolveTarget,
  type Target,
  type TargetOptions,
} from './target.ts';

/** The parsed options of one `baton` operating command (see `USAGE`). */
export interface OpsValues extends TargetOptions {
  readonly json?: boolean;
  readonly yes?: boolean;
  readonly 'dry-run'?: boolean;
  readonly all?: boolean;
  /**
   * `dead-letters redrive`: a letter whose sender was answered DEAD_LETTERED too; `actors
   * pause`: an actor whose head message fails, or with no record, or of a type `--app` does not
   * define; `workflows signal`: an event the instance's open waits do not name, unchecked (no
   * `--app`).
   */
  readonly force?: boolean;
  /** `dead-letters purge --all`: letters whose last redrive is not applied yet too. */
  readonly 'include-pending'?: boolean;
  readonly app?: string;
  readonly type?: string;
  readonly code?: string;
  readonly since?: string;
  readonly limit?: string;
  /** `backlog`: how many actors it shows. */
  readonly top?: string;
  readonly cursor?: string;
  readonly key?: string;
  readonly timeout?: string;
  readonly operator?: string;
  /** `outcome <type/key> <key>`: the caller whose key it is (callerOption.ts); else the CLI's. */
  readonly caller?: string;
  readonly status?: string;
  readonly reason?: string;
  readonly port?: string;
  readonly 'allow-actions'?: boolean;
  /** The inbox queue was created anew since an actor's last turn: send to it all the same. */
  readonly 'queue-replaced'?: boolean;
}

/**
 * What a command runs with: its options and arguments, the deployment (resolved once, when
 * first asked for), who the operator is, and how to print, confirm and audit.
 */
export class OpsContext {
  readonly io: OpsIo;
  readonly values: OpsValues;
  readonly args: readonly string[];
  #target: Promise<Target> | undefined;
  #operator: Promise<string> | undefined;
  #app: Promise<BatonApp> | undefined;
  #inboxChecked: Promise<void> | undefined;

  constructor(io: OpsIo, values: OpsValues, args: readonly string[]) {
    this.io = io;
    this.values = values;
    this.args = args;
  }

  get json(): boolean {
    return this.values.json === true;
  }

  target(): Promise<Target> {
    this.#target ??= resolveTarget(this.values, this.io.env);
    return this.#target;
  }

  /**
   * The app's inbox queue, for a command that sends to it; refused when only the table is named
   * (`runOps` refuses such a command before it runs: see inboxNeeds.ts), and when its URL names
   * no inbox (`checkInboxQueue`, once per command).
   */
  async inbox(): Promise<SqsQueue> {
    const target = await this.target();
    const { queue } = requireInbox(target);
    await this.checkNamedInbox();
    return queue;
  }

  /**
   * Refuses, as {@link inbox} does, an inbox URL that names no inbox (`checkInboxQueue`, once
   * per command), for a command that reads the inbox's counts (`status`, `backlog`, `inspect`):
   * a dead-letter queue passed as the inbox would read as an inbox with nothing waiting. Does
   * nothing when no inbox is named (the table alone: the counts are left out, as they say).
   */
  async checkNamedInbox(): Promise<void> {
    const target = await this.target();
    const url = target.names.inboxUrl;
    if (url === undefined) return;
    this.#inboxChecked ??= checkInboxQueue(target.sqs, url);
    await this.#inboxChecked;
  }

  /**
   * The app's inbox queue ({@link inbox}), for a command that sends to actor `id`: refused when
   * the actor's record read its inbox from another queue (`inboxQueue`), which the message would
   * never reach — `--queue-url` naming another deployment's inbox, say — unless the inbox was
   * created anew since its last turn (`--queue-replaced`). A check SQS cannot answer lets the
   * command go on.
   */
  async inboxOf(id: string): Promise<SqsQueue> {
    const queue = await this.inbox();
    if (this.values['queue-replaced'] === true) return queue;
    const { store, names } = await this.target();
    const read = (await store.load(id))?.inboxQueue;
    // A check SQS cannot answer lets the command go on, as the inbox's own check does.
    // SQS not answering fails the command here, rather than again at the send.
    const identity =
      read &&
      (await queue.identity().catch((error: unknown) => {
        if (unansweredIn(error)) throw error;
        return undefined;
      }));
    if (!identity || identity === read) return queue;
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      `${id} reads its inbox from another queue than ${names.inboxUrl}: check --queue-url (or BATON_INBOX_URL; the URL as the app's workers spell it: another spelling of the same queue reads as another), or name the deployment with --stack. If the inbox was created anew since its last turn, pass --queue-replaced. Nothing was sent to ${id}`,
      { details: { actorId: id, queueUrl: names.inboxUrl } },
    );
  }

  /**
   * A hint's next command, `baton <command>`, with this invocation's target options (see
   * {@link followUp}): every hint that names a `baton` command renders it with this, each id in
   * it an operand, quoted: ``ctx.followUp`actors get ${id}` `` (see {@link FollowUp}).
   */
  readonly followUp: FollowUp = (command, ...operands) =>
    followUp(commandLine(command, ...operands), this.values);

  /** The app `--app` names; refused when it is not given. */
  app(why: string): Promise<BatonApp> {
    const entry = this.values.app;
    if (!entry) {
      throw new BatonError(
        ErrorCode.INVALID_ARGUMENT,
        `${why}: pass --app <entry>, the module whose default export is defineApp({ actors })`,
      );
    }
    this.#app ??= loadApp(entry);
    return this.#app;
  }

  /**
   * Who acts: `--operator`, else the caller's identity from STS on AWS, else a local name
   * (`local:<user>`) on the emulators.
   */
  operator(): Promise<string> {
    this.#operator ??= (async () => {
      if (this.values.operator) return this.values.operator;
      const target = await this.target();
      if (target.local) return `local:${this.io.env.USER ?? userInfo().username}`;
      const sts = new STSClient({
        ...OPERATOR_HTTP,
        ...(target.region ? { region: target.region } : {}),
      });
      try {
        const { Arn } = await sts.send(new GetCallerIdentityCommand({}));
        return Arn ?? 'unknown';
      } catch (error) {
        throw new BatonError(
          ErrorCode.UNAVAILABLE,
          `could not tell who acts, for the audit line (STS GetCallerIdentity: ${(error as Error).message}): nothing was changed; renew your AWS credentials, or pass --operator <name>`,
          { cause: error },
        );
      }
    })();
    return this.#operator;
  }

  /** The argument at `index`, or a usage error naming it. */
  arg(index: number, name: string): string {
    const value = this.args[index];
    if (value === undefined || value === '') {
      throw new BatonError(ErrorCode.INVALID_ARGUMENT, `missing <${name}>: see baton --help`);
    }
    return value;
  }

  /** Prints `value` as JSON with `--json`, else what `human` makes of it. */
  print<T>(value: T, human: (value: T) => string): void {
    this.io.out(this.json ? JSON.stringify(value, null, 2) : human(value));
  }

  /** Tells the operator something beside the result, on stderr (so `--json` output stays JSON). */
  note(text: string): void {
    this.io.err(`baton: ${text}`);
  }

  /** Records who did what, on stderr, as one JSON line (it reaches the shell's or CI's log). */
  async audit(action: string, details: Record<string, unknown>): Promise<void> {
    const by = await this.operator();
    const at = new Date(this.io.now()).toISOString();
    this.io.err(`baton audit ${JSON.stringify({ at, by, action, ...details })}`);
  }

  /**
   * Goes on only with `--yes` or a "yes" on the terminal; refuses otherwise. Who acts is known
   * before it goes on: an action is audited once done, and one whose operator could not be told
   * would be done and not audited.
   */
  async confirm(question: string): Promise<void> {
    const { confirm } = this.io;
    if (!this.values.yes && !confirm) {
      throw new BatonError(
        ErrorCode.INVALID_ARGUMENT,
        `${question} — refused without a terminal to ask: pass --yes to confirm`,
      );
    }
    await this.operator();
    if (this.values.yes || (await confirm!(question))) return;
    // Declined, not mistyped: CANCELLED, so the command exits 1 (failed), not 2 (usage).
    throw new BatonError(ErrorCode.CANCELLED, 'not confirmed: nothing was changed');
  }
}
