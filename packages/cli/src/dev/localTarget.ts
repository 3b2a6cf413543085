/**
 * What `baton <command> --local <url>` asks a running `baton dev` for: the table, queues and
 * emulator endpoints its app runs on, so the operating commands work on it as on a deployment.
 * Only `--backend local-aws` has them; the embedded backend's journal belongs to the app process.
 */
import type { ChildConfig } from './protocol.ts';

/** Where `baton dev` answers it (a GET; the names of local emulators are no secret). */
export const LOCAL_TARGET_PATH = '/_baton/target';

/** The answer to `GET /_baton/target`: the names, or why there are none. */
export function localTarget(
  config: ChildConfig,
  inspectorUrl: string,
): { status: number; body: unknown } {
  const aws = config.aws;
  if (!aws) {
    return {
      status: 409,
      body: {
        error: {
          code: 'INVALID_ARGUMENT',
          message: `this baton dev runs the embedded backend, whose journal only its app process may open: restart it with --backend local-aws to operate it with the baton commands, or use its inspector at ${inspectorUrl}, whose form sends as trusted code too (internal handlers, workflows)`,
        },
      },
    };
  }
  return {
    status: 200,
    body: {
      table: aws.tableName,
      inboxUrl: aws.queueUrl,
      ...(aws.deadLetterQueueUrl ? { deadLetterQueueUrl: aws.deadLetterQueueUrl } : {}),
      dynamodbEndpoint: aws.dynamodbEndpoint,
      sqsEndpoint: aws.sqsEndpoint,
    },
  };
}
