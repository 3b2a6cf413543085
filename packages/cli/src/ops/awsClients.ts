/**
 * The AWS SDK clients of the operating commands: configured as the functions' are, but for their
 * retries, since an operator's differ from a worker's, which retries by redelivery: see
 * {@link OperatorRetryStrategy}.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { clientSettings } from '@baton/aws';
import { BatonError, ErrorCode, isBatonError } from '@baton/core';

/** Attempts at a call AWS throttles, unless `AWS_MAX_ATTEMPTS` says otherwise. */
export const THROTTLED_ATTEMPTS = 10;
/** Attempts at a call that failed otherwise (a connection refused, a 5xx): the SDK's default. */
const OTHER_ATTEMPTS = 3;
/**
 * The first pause before a retry of each kind of failure the SDK's standard mode retries,
 * doubled at each (jittered); other kinds (a client's error) are not retried.
 */
const FIRST_PAUSE_MS: Readonly<Record<string, number>> = {
  THROTTLING: 1000,
  TRANSIENT: 50,
  SERVER_ERROR: 100,
};
const LONGEST_PAUSE_MS = 20_000;

/** What the SDK's retry middleware reads of a retry: how many so far, and the pause before it. */
interface RetryToken {
  getRetryCount(): number;
  getRetryDelay(): number;
}

const retryToken = (count: number, delayMs: number): RetryToken => ({
  getRetryCount: () => count,
  getRetryDelay: () => delayMs,
});

/**
 * How the operating commands retry a call (an SDK `RetryStrategyV2`). They run in an incident,
 * often while the table throttles, and one call that fails fails the whole command: `status`
 * without `--outbox-shards` sends some 300 queries, and with a quarter of reads throttled the
 * SDK's default of 3 attempts failed it two runs in three. So a throttled call is tried up to
 * 10 times, with the SDK's pauses for throttling (jittered, doubling from 1 s up to 20 s), which
 * outlast a burst; a table throttled for good still fails the command, within a minute or two.
 * Any other retryable failure keeps the SDK's 3 attempts, so that an endpoint out of reach is
 * said in a second, not after ten tries. Not the SDK's `adaptive` mode: its client-side limiter
 * starts from the rate it measured, next to nothing in a command's first second, so the first
 * throttle cut the client to about a call a second, and `status` took minutes.
 */
export class OperatorRetryStrategy {
  readonly #throttledAttempts: number;

  constructor(throttledAttempts = THROTTLED_ATTEMPTS) {
    this.#throttledAttempts = throttledAttempts;
  }

  async acquireInitialRetryToken(): Promise<RetryToken> {
    return retryToken(0, 0);
  }

  /** The next retry of a call that failed with `errorType`; throws when there is none. */
  async refreshRetryTokenForRetry(
    token: RetryToken,
    { errorType }: { readonly errorType: string },
  ): Promise<RetryToken> {
    const retries = token.getRetryCount();
    const attempts =
      errorType === 'THROTTLING'
        ? this.#throttledAttempts
        : Math.min(OTHER_ATTEMPTS, this.#throttledAttempts);
    const firstPause = FIRST_PAUSE_MS[errorType];
    if (firstPause === undefined || retries + 1 >= attempts) {
      throw new Error(`no retry left (${errorType}, ${retries + 1} attempt(s))`);
    }
    const ceiling = Math.min(firstPause * 2 ** retries, LONGEST_PAUSE_MS);
    return retryToken(retries + 1, Math.floor(Math.random() * ceiling));
  }

  recordSuccess(): void {}
}

/**
 * The retry settings of the operating commands' clients: {@link OperatorRetryStrategy}, its
 * throttled attempts from `AWS_MAX_ATTEMPTS` if set; with `AWS_RETRY_MODE` set, the SDK's own
 * mode instead, as the SDK documents both.
 */
export function operatorRetries(
  env: Readonly<Record<string, string | undefined>>,
): { readonly retryStrategy: OperatorRetryStrategy } | { readonly retryMode: string } {
  if (env.AWS_RETRY_MODE) return { retryMode: env.AWS_RETRY_MODE };
  return { retryStrategy: new OperatorRetryStrategy(maxAttempts(env)) };
}

/** The attempts at a throttled call: `AWS_MAX_ATTEMPTS`, else {@link THROTTLED_ATTEMPTS}. */
export function maxAttempts(env: Readonly<Record<string, string | undefined>>): number {
  const given = Number(env.AWS_MAX_ATTEMPTS);
  return Number.isInteger(given) && given >= 1 ? given : THROTTLED_ATTEMPTS;
}

/** Where the clients go: the region, and the emulators' endpoints if any. */
export interface OperatorClientOptions {
  readonly region: string | undefined;
  readonly dynamodbEndpoint: string | undefined;
  readonly sqsEndpoint: string | undefined;
}

/**
 * The most calls a client of the operating commands has in flight at once: as many as the
 * sockets the SDK's HTTP agent opens to an endpoint (its default `maxSockets`). `status` given
 * the table alone sends some 300 queries side by side (and a dead letter's read per letter
 * found): past 50, the agent queued them, and once one waited 3 s for a socket, the SDK printed
 * "socket usage at capacity" on stderr in the operator's terminal, though nothing was wrong.
 * Held back here instead, they wait their turn unseen, as many at once as before.
 */
export const CALLS_AT_ONCE = 50;

/**
 * A gate that lets at most `limit` calls run at once; the others wait their turn, in order.
 *
 * @example
 * const gate = callGate(2);
 * await Promise.all(urls.map((url) => gate(() => fetch(url)))); // two at a time
 */
export function callGate(limit: number): <T>(call: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: Array<() => void> = [];
  return async (call) => {
    // A call that ends hands its place to the first waiting, so none overtakes it.
    if (running < limit) running++;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await call();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
}

/**
 * Holds `client`'s calls to {@link CALLS_AT_ONCE} at once: a middleware around each attempt's
 * request and the read of its answer (the socket is free again once the answer is read), inside
 * the retries, so a call pausing before its retry holds no place.
 */
function limitCallsAtOnce(client: DynamoDBClient | SQSClient): void {
  const gate = callGate(CALLS_AT_ONCE);
  (client.middlewareStack as DynamoDBClient['middlewareStack']).add(
    (next) => (args) => gate(() => next(args)),
    { step: 'deserialize', priority: 'high', name: 'batonCallsAtOnce' },
  );
}

/** How long a call of the operating commands waits to connect to its endpoint, each attempt. */
export const CONNECTION_TIMEOUT_MS = 5_000;

/**
 * How long a call of the operating commands waits for its answer once connected, each attempt.
 * Without it the SDK waits for good: a service that stops answering (a frozen emulator, a
 * network that drops what it is sent) held a command, silent, for minutes. Well past the
 * longest any call of theirs may rightly take: their only long poll, `queue-dead-letters
 * redrive`'s receive, waits 2 s (`REDRIVE_WAIT_S`), and DynamoDB answers a page of a scan in
 * well under a second.
 */
export const REQUEST_TIMEOUT_MS = 10_000;

/**
 * The HTTP settings of every AWS client of the operating commands (the SDK's `requestHandler`
 * options): {@link CONNECTION_TIMEOUT_MS} and {@link REQUEST_TIMEOUT_MS}, the second made an
 * error (the SDK only warns of it otherwise).
 */
export const OPERATOR_HTTP = {
  requestHandler: {
    connectionTimeout: CONNECTION_TIMEOUT_MS,
    requestTimeout: REQUEST_TIMEOUT_MS,
    throwOnRequestTimeout: true,
  },
} as const;

/** Where a client's calls go, as the failure of one that got no answer names it. */
interface Reach {
  /** `DynamoDB`, `SQS`. */
  readonly service: string;
  /** The option and variable that set its endpoint, when one was given (the emulators'). */
  readonly endpointFlag?: string;
}

/**
 * How a call failed for want of an answer: `connect`, no connection was made (refused, no
 * such host, none within {@link CONNECTION_TIMEOUT_MS}), its request never sent;
 * `timeout`, connected and sent, no answer within {@link REQUEST_TIMEOUT_MS}; `dropped`, the
 * connection closed before the answer. `undefined` for any other failure (an answer).
 */
function unansweredKind(error: unknown): 'connect' | 'timeout' | 'dropped' | undefined {
  const { name, code, message } = (error ?? {}) as {
    name?: string;
    code?: string;
    message?: string;
  };
  // By the code first: the SDK names a reset connection a TimeoutError too.
  if (code && CONNECT_FAILURES.has(code)) return 'connect';
  if (code === 'ECONNRESET' || code === 'EPIPE') return 'dropped';
  if (name === 'TimeoutError') {
    return /establish a connection/.test(message ?? '') ? 'connect' : 'timeout';
  }
  return undefined;
}

/** The errors of a connection that could not be made: the request never left. */
const CONNECT_FAILURES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/**
 * What {@link unanswered} puts in a failure's details: which service at which endpoint did not
 * answer, and how.
 */
export interface Unanswered {
  readonly service: string;
  readonly endpoint: string;
  readonly unanswered: 'connect' | 'timeout' | 'dropped';
  /** What happened, without the advice: for a command that says what to do itself (`send`). */
  readonly summary: string;
}

/** The {@link Unanswered} failure in `error` or its causes, if one is. */
export function unansweredIn(error: unknown): Unanswered | undefined {
  for (let e = error, depth = 0; e !== undefined && e !== null && depth < 8; depth++) {
    if (isBatonError(e) && typeof e.details.unanswered === 'string') {
      return e.details as unknown as Unanswered;
    }
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * The failure of a call no answer came to, after its attempts: which service at which endpoint,
 * how long it waited, and what to check (the endpoint given, else the network and the region).
 * Every other failure is left as it is.
 */
function unanswered(error: unknown, reach: Reach, endpoint: string): unknown {
  const kind = unansweredKind(error);
  if (kind === undefined) return error;
  const attempts = (error as { $metadata?: { attempts?: number } }).$metadata?.attempts ?? 1;
  const tries = `${attempts} attempt${attempts === 1 ? '' : 's'}`;
  const { service } = reach;
  const cause = (error as Error).message || (error as { code?: string }).code || String(error);
  const what =
    kind === 'timeout'
      ? `${service} at ${endpoint} did not answer within ${REQUEST_TIMEOUT_MS / 1000} s (${tries}): it may be down, stalled or out of reach`
      : kind === 'dropped'
        ? `${service} at ${endpoint} closed the connection before it answered (${cause}; ${tries})`
        : /establish a connection/.test(cause)
          ? `could not connect to ${service} at ${endpoint} within ${CONNECTION_TIMEOUT_MS / 1000} s (${tries})`
          : `could not connect to ${service} at ${endpoint} (${cause}; ${tries})`;
  const check = reach.endpointFlag
    ? `check the endpoint (${reach.endpointFlag}) and that ${service}, or its emulator, runs there and answers`
    : `check your network (a proxy, a VPN, the VPC's endpoints) and the region (--region or AWS_REGION)`;
  return new BatonError(ErrorCode.UNAVAILABLE, `${what}; ${check}, then run the command again`, {
    cause: error,
    details: { service, endpoint, unanswered: kind, attempts, summary: what },
  });
}

/** The names of the calls that change what a service holds (a table's items, a queue's messages). */
const WRITES = /^(Send|Delete|Purge|Put|Update|TransactWrite|BatchWrite)/;

/** How many of a command's writes may have reached their service: see {@link operatorClients}. */
export interface WritesSent {
  count: number;
}

/**
 * Says who did not answer: a middleware around each call after its retries (the request built,
 * its endpoint known) that turns a failure for want of an answer into {@link unanswered}'s; and,
 * around each attempt, counts in `writes` the writes that may have reached the service (all
 * but those that could not connect), so that a command told of a failure knows whether it
 * changed anything.
 */
function sayWhoDidNotAnswer(
  client: DynamoDBClient | SQSClient,
  reach: Reach,
  writes: WritesSent,
): void {
  const stack = client.middlewareStack as DynamoDBClient['middlewareStack'];
  stack.add(
    (next) => async (args) => {
      try {
        return await next(args);
      } catch (error) {
        const {
          protocol = 'https:',
          hostname = '',
          port,
        } = args.request as {
          protocol?: string;
          hostname?: string;
          port?: number;
        };
        const scheme = protocol.endsWith(':') ? protocol : `${protocol}:`;
        throw unanswered(error, reach, `${scheme}//${hostname}${port ? `:${port}` : ''}`);
      }
    },
    { step: 'build', priority: 'low', name: 'batonUnanswered' },
  );
  stack.add(
    (next, context) => async (args) => {
      const write = WRITES.test(context.commandName ?? '');
      try {
        const result = await next(args);
        if (write) writes.count++;
        return result;
      } catch (error) {
        if (write && unansweredKind(error) !== 'connect') writes.count++;
        throw error;
      }
    },
    { step: 'deserialize', priority: 'low', name: 'batonWritesSent' },
  );
}

/**
 * DynamoDB and SQS clients configured as the functions' are (`clientSettings`: the region, the
 * emulators' endpoints and their placeholder credentials), with {@link operatorRetries} and
 * {@link OPERATOR_HTTP}'s timeouts, each with at most {@link CALLS_AT_ONCE} calls in flight. A
 * call that got no answer fails naming the service and its endpoint ({@link unansweredIn});
 * `writes` counts the writes of both that may have reached them.
 */
export function operatorClients(
  { region, dynamodbEndpoint, sqsEndpoint }: OperatorClientOptions,
  env: Readonly<Record<string, string | undefined>>,
): {
  readonly dynamodb: DynamoDBClient;
  readonly sqs: SQSClient;
  readonly writes: Readonly<WritesSent>;
} {
  const settings = clientSettings({
    ...(region ? { region } : {}),
    ...(dynamodbEndpoint ? { dynamodbEndpoint } : {}),
    ...(sqsEndpoint ? { sqsEndpoint } : {}),
  });
  const config = (endpoint: string | undefined) => ({
    ...settings.config(endpoint),
    ...operatorRetries(env),
    ...OPERATOR_HTTP,
  });
  const dynamodb = new DynamoDBClient(config(settings.dynamodbEndpoint));
  const sqs = new SQSClient(config(settings.sqsEndpoint));
  const writes: WritesSent = { count: 0 };
  limitCallsAtOnce(dynamodb);
  limitCallsAtOnce(sqs);
  sayWhoDidNotAnswer(
    dynamodb,
    {
      service: 'DynamoDB',
      ...(settings.dynamodbEndpoint && {
        endpointFlag:
          '--dynamodb-endpoint, BATON_DYNAMODB_ENDPOINT, or the baton dev --local names',
      }),
    },
    writes,
  );
  sayWhoDidNotAnswer(
    sqs,
    {
      service: 'SQS',
      ...(settings.sqsEndpoint && {
        endpointFlag: '--sqs-endpoint, BATON_SQS_ENDPOINT, or the baton dev --local names',
      }),
    },
    writes,
  );
  return { dynamodb, sqs, writes };
}
