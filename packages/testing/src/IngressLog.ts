/**
 * The run's ingress as its client makes it: the sends scheduled and not made yet, in order;
 * those made, and when (a client retries one under its key: the `duplicateIngress` fault); and
 * the message id the client gave each idempotency key.
 */
import { BatonError } from '@baton/core';
import type { Client } from '@baton/core/client';
import type { Action } from './Action.ts';
import type { IngressSend } from './faultActions.ts';
import type { SimCluster } from './SimCluster.ts';

/**
 * How long after a send a client may retry it under the same key: the engine's idempotency
 * retention (14 days by default) less its day of margin for a sender's clock. Past it, the key's
 * outcome is gone, and a send under it is a new message (docs: use a key for one message only).
 */
const RETRY_WINDOW_MS = 13 * 24 * 60 * 60 * 1000;

export class IngressLog {
  readonly #pending: Array<{ label: string; to: string; key: string; send: IngressSend }> = [];
  /** The ingress sends made, and when: a client retries one under its key (`duplicateIngress`). */
  readonly #submitted: Array<{
    readonly send: IngressSend;
    readonly to: string;
    readonly key: string;
    readonly at: number;
  }> = [];
  /** Idempotency key → the message id the client gave it. */
  readonly #messageIds = new Map<string, string>();

  /**
   * Schedules `send`, to actor `to` under idempotency key `key`: the run decides when it is made.
   * The message id it is given is kept for its key.
   */
  schedule(
    label: string,
    to: string,
    key: string,
    send: (client: Client) => Promise<{ readonly messageId: string }>,
  ): void {
    const recorded: IngressSend = async (client) => {
      try {
        const { messageId } = await send(client);
        this.#messageIds.set(key, messageId);
      } catch (error) {
        // Refused at the door yet enqueued (a keyed signal to an ended instance): its outcome,
        // kept under this id, says so, as a client would read it.
        const messageId = (error as BatonError).details?.messageId;
        if (!(error instanceof BatonError) || typeof messageId !== 'string') throw error;
        this.#messageIds.set(key, messageId);
      }
    };
    this.#pending.push({ label, to, key, send: recorded });
  }

  /** How many sends are scheduled and not made yet. */
  get pending(): number {
    return this.#pending.length;
  }

  /** The message id the client gave idempotency key `key`; the key itself until then. */
  messageId(key: string): string {
    return this.#messageIds.get(key) ?? key;
  }

  /**
   * The sends made that a client may retry at `now`: within its key's retention only (later, it
   * would be a new send); nor to an actor paused unless copies to it are allowed
   * (`Faults.pauseBusy`), nor one its actor parked.
   */
  retryable(
    now: number,
    paused: ReadonlyMap<string, { readonly busy: boolean }>,
    parkedIngress: ReadonlySet<string>,
  ): IngressSend[] {
    const since = now - RETRY_WINDOW_MS;
    return this.#submitted
      .filter((s) => s.at > since && paused.get(s.to)?.busy !== false)
      .filter((s) => !parkedIngress.has(this.#messageIds.get(s.key) ?? ''))
      .map((s) => s.send);
  }

  /** The step that makes the next send scheduled, if any: once made, a client may retry it. */
  nextSend(cluster: SimCluster): Action | undefined {
    const next = this.#pending[0];
    if (!next) return undefined;
    return {
      label: next.label,
      run: async () => {
        this.#pending.shift();
        const { send, to, key } = next;
        this.#submitted.push({ send, to, key, at: cluster.context.clock.now() });
        await next.send(cluster.client);
      },
    };
  }
}
