import { type BatonError, errorFromJSON } from '@baton/core';
import type {
  AcceptedMessage,
  AskMessage,
  ErrorMessage,
  ReplyMessage,
  SendMessage,
  VisibleMessage,
} from '@baton/protocol';

/** A `send` or `ask` waiting for its answer. */
interface InFlight {
  readonly frame: SendMessage | AskMessage;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: BatonError) => void;
  timer: unknown;
  /** Whether it went out on an open socket: one that never did was not applied. */
  sent: boolean;
  /**
   * The user the client was connected as when it was made (`Connection.subject`); undefined
   * for one made before the first connection opened, which then goes out as its user.
   */
  madeAs: string | undefined;
}

/** An answer to a request. */
export type RequestAnswer = AcceptedMessage | ReplyMessage | VisibleMessage | ErrorMessage;

/**
 * The sends and asks in flight, by request id. Each keeps its frame, so after a reconnect it
 * goes out again unchanged — same `requestId`, same `idempotencyKey` — and the server
 * recognises it. A request settles on:
 * - `send`: `accepted` (or `visible`, when it asked for `visible: true`) → `{ messageId }`;
 * - `ask`: `reply` → the value;
 * - either: `error` → a BatonError carrying the server's `code`.
 */
export class RequestTable {
  readonly #inFlight = new Map<string, InFlight>();
  readonly #clearTimeout: (handle: unknown) => void;

  constructor(clearTimeout: (handle: unknown) => void) {
    this.#clearTimeout = clearTimeout;
  }

  /**
   * Every frame in flight that may go out as `subject` (the user of a new connection), in the
   * order they were first sent. One made as another user is rejected with
   * `otherUser(frame, madeAs)` instead: sent again, it would be the new user's.
   */
  resend(
    subject: string,
    otherUser: (frame: SendMessage | AskMessage, madeAs: string) => BatonError,
  ): (SendMessage | AskMessage)[] {
    const frames: (SendMessage | AskMessage)[] = [];
    for (const entry of [...this.#inFlight.values()]) {
      const { frame, madeAs } = entry;
      if (madeAs !== undefined && madeAs !== subject) {
        this.fail(frame.requestId, otherUser(frame, madeAs));
      } else {
        entry.madeAs = subject;
        frames.push(frame);
      }
    }
    return frames;
  }

  /** Registers a request made as `madeAs`; `settled` resolves or rejects with its answer. */
  add(frame: SendMessage | AskMessage, madeAs: string | undefined): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.#inFlight.set(frame.requestId, {
        frame,
        resolve,
        reject,
        timer: undefined,
        sent: false,
        madeAs,
      });
    });
  }

  /** Notes that a request went out on an open socket. */
  markSent(requestId: string): void {
    const entry = this.#inFlight.get(requestId);
    if (entry) entry.sent = true;
  }

  /** Whether a request in flight went out on an open socket (see {@link InFlight.sent}). */
  wasSent(requestId: string): boolean {
    return this.#inFlight.get(requestId)?.sent === true;
  }

  /** Attaches a timer to a request, cleared when it settles. */
  setTimer(requestId: string, timer: unknown): void {
    const entry = this.#inFlight.get(requestId);
    if (entry) entry.timer = timer;
  }

  /** Applies an answer; false if no request in flight has that id. */
  answer(message: RequestAnswer): boolean {
    const requestId = message.requestId;
    const entry = requestId === undefined ? undefined : this.#inFlight.get(requestId);
    if (entry === undefined) return false;
    const { frame } = entry;
    switch (message.type) {
      case 'error':
        this.#settle(frame.requestId, undefined, errorFromJSON(message.error));
        break;
      case 'accepted':
        if (frame.type === 'send' && frame.visible !== true) {
          this.#settle(frame.requestId, { messageId: message.messageId });
        }
        break;
      case 'visible':
        if (frame.type === 'send') this.#settle(frame.requestId, { messageId: message.messageId });
        break;
      case 'reply':
        if (frame.type === 'ask') this.#settle(frame.requestId, message.value);
        break;
    }
    return true;
  }

  /** Rejects one request (e.g. its timeout). */
  fail(requestId: string, error: BatonError): void {
    this.#settle(requestId, undefined, error);
  }

  /** Rejects everything in flight, each with `error(frame)` (the connection ended for good). */
  failAll(error: (frame: SendMessage | AskMessage) => BatonError): void {
    for (const { frame } of [...this.#inFlight.values()]) this.fail(frame.requestId, error(frame));
  }

  #settle(requestId: string, value: unknown, error?: BatonError): void {
    const entry = this.#inFlight.get(requestId);
    if (entry === undefined) return;
    this.#inFlight.delete(requestId);
    if (entry.timer !== undefined) this.#clearTimeout(entry.timer);
    if (error) entry.reject(error);
    else entry.resolve(value);
  }
}
