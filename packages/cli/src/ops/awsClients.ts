/**
 * The AWS SDK clients of the operating commands: configured as the functions' are, but for their
 * retries, since an operator's differ from a worker's, which retries by redelivery: see
 * {@link OperatorRetryStrategy}.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { clientSettings } from '@baton/aws';

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

/**
 * DynamoDB and SQS clients configured as the functions' are (`clientSettings`: the region, the
 * emulators' endpoints and their placeholder credentials), with {@link operatorRetries}, each
 * with at most {@link CALLS_AT_ONCE} calls in flight.
 */
export function operatorClients(
  { region, dynamodbEndpoint, sqsEndpoint }: OperatorClientOptions,
  env: Readonly<Record<string, string | undefined>>,
): { readonly dynamodb: DynamoDBClient; readonly sqs: SQSClient } {
  const settings = clientSettings({
    ...(region ? { region } : {}),
    ...(dynamodbEndpoint ? { dynamodbEndpoint } : {}),
    ...(sqsEndpoint ? { sqsEndpoint } : {}),
  });
  const config = (endpoint: string | undefined) => ({
    ...settings.config(endpoint),
    ...operatorRetries(env),
  });
  const dynamodb = new DynamoDBClient(config(settings.dynamodbEndpoint));
  const sqs = new SQSClient(config(settings.sqsEndpoint));
  limitCallsAtOnce(dynamodb);
  limitCallsAtOnce(sqs);
  return { dynamodb, sqs };
}
