/**
 * Calls on received messages' receipts (delete, change visibility), a batch of at most
 * {@link BATCH_MAX} a call. A stale receipt (the message came back or is gone) is no failure.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import { BatonError, ErrorCode, MAX_VISIBILITY_TIMEOUT_MS } from '@baton/core';
import { invalidArgument } from '@baton/core/adapter';
import { unavailable } from '../internal/unavailable.ts';
import { ChangeMessageVisibilityBatchCommand } from '../sdk.ts';
import { BATCH_MAX } from './sendEntries.ts';

/** SQS's longest visibility timeout: 12 hours. */
const MAX_VISIBILITY_SECONDS = MAX_VISIBILITY_TIMEOUT_MS / 1000;

/** Per-entry failures that mean the receipt is stale: the message was redelivered or deleted. */
const STALE_RECEIPT = new Set(['ReceiptHandleIsInvalid', 'MessageNotInflight']);

/** Whether SQS refused a receipt as stale (a batch entry's failure, or a single call's error). */
export function isStale(code: string | undefined, message: string | undefined): boolean {
  return (
    STALE_RECEIPT.has(code ?? '') ||
    (code === 'InvalidParameterValue' && /receipt handle/i.test(message ?? ''))
  );
}

/** Calls `operation` on `receipts`, {@link BATCH_MAX} a call; stale receipts are ignored. */
export async function perReceipt(
  queueUrl: string,
  operation: string,
  receipts: readonly string[],
  call: (
    queueUrl: string,
    entries: { Id: string; ReceiptHandle: string }[],
  ) => Promise<{ Failed?: { Code?: string; Message?: string }[] }>,
): Promise<void> {
  for (let i = 0; i < receipts.length; i += BATCH_MAX) {
    const chunk = receipts.slice(i, i + BATCH_MAX);
    let failed: { Code?: string; Message?: string }[];
    try {
      const entries = chunk.map((ReceiptHandle, n) => ({ Id: String(n), ReceiptHandle }));
      failed = (await call(queueUrl, entries)).Failed ?? [];
    } catch (error) {
      throw unavailable('SQS', operation, error);
    }
    const error = batchFailure(operation, failed);
    if (error) throw error;
  }
}

/** Makes messages visible again after `delayMs` (rounded up to seconds, at most 12 h). */
export async function releaseReceipts(
  client: SQSClient,
  queueUrl: string,
  receipts: readonly string[],
  delayMs: number,
): Promise<void> {
  const VisibilityTimeout = Math.min(MAX_VISIBILITY_SECONDS, toSeconds(delayMs));
  await perReceipt(
    queueUrl,
    'ChangeMessageVisibilityBatch',
    [...new Set(receipts)],
    (QueueUrl, entries) =>
      client.send(
        new ChangeMessageVisibilityBatchCommand({
          QueueUrl,
          Entries: entries.map((entry) => ({ ...entry, VisibilityTimeout })),
        }),
      ),
  );
}

/** Milliseconds as whole seconds, rounded up. */
export function toSeconds(ms: number): number {
  if (!Number.isFinite(ms) || ms < 0) {
    throw invalidArgument(`a duration must be a finite number of milliseconds ≥ 0, got ${ms}`);
  }
  return Math.ceil(ms / 1000);
}

/**
 * The error of a batch call on receipts whose entries `failed` (a `BatchResultErrorEntry` each);
 * undefined when all failed as stale. A release SQS refused as past 12 hours from the receive
 * ("Total VisibilityTimeout for the message is beyond the limit", `InvalidParameterValue`;
 * ElasticMQ takes it) is INVALID_ARGUMENT: asked again, it fails again. Anything else is
 * UNAVAILABLE. Either way SQS changed nothing of the failed ones: each comes back when the
 * visibility timeout it has runs out; none is deleted.
 */
export function batchFailure(
  operation: string,
  failed: readonly { Code?: string; Message?: string }[],
): BatonError | undefined {
  const real = failed.filter((f) => !isStale(f.Code, f.Message));
  if (real.length === 0) return undefined;
  const first = real[0]!;
  const past = real.every((f) => /beyond the limit/.test(f.Message!));
  return new BatonError(
    past ? ErrorCode.INVALID_ARGUMENT : ErrorCode.UNAVAILABLE,
    `SQS ${operation} failed for ${real.length} receipts (first: ${first.Code}: ${first.Message})` +
      (past
        ? ': past 12 h from its receive; none deleted, back after its visibility timeout; see releaseReach'
        : ''),
    { details: { service: 'SQS', operation, failed: real }, internal: !past },
  );
}
